// shift: the rotation identities M_m, M_m^T and M_a M_b = M_{a+b} on the implementation's rows.
#include <fmt/format.h>

#include <cmath>

#include "peverify/oracle/engine.h"
#include "peverify/properties/check_util.h"
#include "peverify/properties/checks.h"

namespace pev::properties {

PropertyVerdict check_shift(const UnderTest& ut, const TableSpec& spec,
                            const std::vector<ShiftCase>& cases) {
  using internal::allowed_near;
  PropertyVerdict v;
  v.property = "shift";
  const std::vector<internal::PairColumns> cols = internal::pair_columns(spec);
  const measure::Judge judge(spec, ut.claim(), ut.output());
  const double bound = internal::value_bound(spec, ut.output());
  // The rows are scaled by the attention factor; the rotations M_m are not.
  const double att = attention_factor(spec);
  TableSpec unscaled = spec;
  if (att != 1) unscaled.rope.attention_factor = 1.0;
  const auto engine = oracle::make_engine(oracle::EngineKind::kFast, unscaled, ut.output());
  uint64_t bad = 0;
  double worst_fraction = 0;
  const auto row_of = [&](uint64_t pos) {
    TableSpec s = spec;
    s.start = pos;
    return ut.rows(s, 1);
  };
  for (const ShiftCase& sc : cases) {
    const internal::PairColumns pc = cols[sc.pair];
    if (pc.sin < 0 || pc.cos < 0) continue;  // a cache of one function has no pairs to rotate
    const std::vector<double> r0 = row_of(sc.pos), r1 = row_of(sc.pos + sc.m);
    TableSpec at_m = spec;
    at_m.start = sc.m;
    // M_m read from the implementation's own row m, when it has that row (a loaded table
    // starting later does not).
    const std::vector<double> rm = ut.can_produce(at_m, 1) ? row_of(sc.m) : std::vector<double>();
    oracle::TileValues mv;
    engine->evaluate({sc.m, 1, sc.pair, 1}, mv);
    const double cm = mv.cos_exact[0], sm = mv.sin_exact[0];  // M_m, exact to 2^-53
    const auto err_of = [&](const std::vector<double>& r, uint64_t pos) {
      const double st = static_cast<double>(ut.steps_since_direct(pos));
      const double es = allowed_near(judge, pos, pc.sin, st, r[pc.sin], bound);
      const double ec = allowed_near(judge, pos, pc.cos, st, r[pc.cos], bound);
      return std::hypot(es, ec);
    };
    const double e0 = err_of(r0, sc.pos), e1 = err_of(r1, sc.pos + sc.m);
    const auto check = [&](double got, double predicted, double tol, uint64_t pos, int column,
                           const char* what) {
      ++v.checked;
      const double dev = std::fabs(got - predicted);
      worst_fraction = std::max(worst_fraction, dev / tol);
      if (!(dev <= tol)) {
        ++bad;
        measure::keep_worst(v.worst, {pos, column, got, predicted, dev, tol, 0, what});
      }
    };
    const double s0 = r0[pc.sin], c0 = r0[pc.cos], s1 = r1[pc.sin], c1 = r1[pc.cos];
    // Forward: rotating an error e gives an error |e|; M_m itself is off by ~2^-53.
    const double tol_fwd = e0 + e1 + 0x1p-50 * att;
    check(s1, s0 * cm + c0 * sm, tol_fwd, sc.pos + sc.m, pc.sin, "M_m");
    check(c1, c0 * cm - s0 * sm, tol_fwd, sc.pos + sc.m, pc.cos, "M_m");
    check(s0, s1 * cm - c1 * sm, tol_fwd, sc.pos, pc.sin, "M_m^T");
    check(c0, c1 * cm + s1 * sm, tol_fwd, sc.pos, pc.cos, "M_m^T");
    if (rm.empty()) continue;
    // Composition with the implementation's own rotations: M_pos M_m = M_{pos+m}. Products of
    // perturbed rotations: |M_a~ M_b~ - M_a M_b| <= e_a + e_b + e_a e_b per entry. Row m is
    // att M_m: divided by att (exact for att = 1), its error is em / att.
    const double em = err_of(rm, sc.m) / att;
    const double sa = rm[pc.sin] / att, ca = rm[pc.cos] / att;
    const double tol_comp = e0 + att * em + e0 * em + e1 + 0x1p-50 * att;
    check(s1, s0 * ca + c0 * sa, tol_comp, sc.pos + sc.m, pc.sin, "M_a M_b = M_{a+b}");
    check(c1, c0 * ca - s0 * sa, tol_comp, sc.pos + sc.m, pc.cos, "M_a M_b = M_{a+b}");
  }
  v.holds = bad == 0;
  v.figures["violations"] = static_cast<double>(bad);
  v.figures["worst_fraction_of_tolerance"] = worst_fraction;
  v.summary = v.holds ? fmt::format("{} identity checks within tolerance (worst {:.3g} of it)",
                                    v.checked, worst_fraction)
                      : fmt::format("{} of {} identity checks broke (worst {:.3g} x tolerance)",
                                    bad, v.checked, worst_fraction);
  return v;
}

}  // namespace pev::properties
