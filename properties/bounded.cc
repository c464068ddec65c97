// bounded: every value finite and within the attention factor (1 for plain tables), and
// sin^2 + cos^2 = attention^2 within the claim.
#include <fmt/format.h>

#include <cmath>

#include "properties/check_util.h"
#include "properties/checks.h"

namespace pev::properties {

Verdict check_bounded(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  using internal::allowed_near;
  Verdict v;
  v.property = "bounded";
  const int width = table_width(spec);
  const std::vector<internal::PairColumns> cols = internal::pair_columns(spec);
  const measure::Judge judge(spec, ut.claim(), ut.output());
  const double bound = internal::value_bound(spec, ut.output());
  const double att = attention_factor(spec);
  double worst_identity = 0;
  uint64_t bad = 0;
  internal::for_each_chunk(
      ut, spec, count, [&](uint64_t first, const std::vector<double>& t, uint64_t n) {
        for (uint64_t r = 0; r < n; ++r) {
          const uint64_t pos = spec.start + first + r;
          const double* row = t.data() + r * width;
          for (int c = 0; c < width; ++c) {
            ++v.checked;
            if (!std::isfinite(row[c]) || std::fabs(row[c]) > bound) {
              ++bad;
              measure::keep_worst(
                  v.worst,
                  {pos, c, row[c], std::clamp(row[c], -bound, bound),
                   std::isnan(row[c]) ? NAN : std::fabs(row[c]) - bound, 0, 0,
                   std::isfinite(row[c]) ? fmt::format("out of [-{:.7g}, {:.7g}]", bound, bound)
                                         : std::string("not finite")});
            }
          }
          for (int k = 0; k < static_cast<int>(cols.size()); ++k) {
            if (cols[k].sin < 0 || cols[k].cos < 0) continue;
            const double s = row[cols[k].sin], co = row[cols[k].cos];
            if (!std::isfinite(s) || !std::isfinite(co)) continue;
            const double steps = static_cast<double>(ut.steps_since_direct(pos));
            const double es = allowed_near(judge, pos, cols[k].sin, steps, s, bound);
            const double ec = allowed_near(judge, pos, cols[k].cos, steps, co, bound);
            // |(s+e_s)^2 + (c+e_c)^2 - att^2| <= 2|s||e_s| + 2|c||e_c| + e_s^2 + e_c^2, plus the
            // evaluation's own rounding in double (and att^2's, relative to att^2).
            const double tol = 2 * (std::fabs(s) * es + std::fabs(co) * ec) + es * es + ec * ec +
                               0x1p-50 * att * att;
            const double dev = std::fabs(s * s + co * co - att * att);
            worst_identity = std::max(worst_identity, dev / tol);
            if (dev > tol) {
              ++bad;
              measure::keep_worst(
                  v.worst, {pos, cols[k].sin, s * s + co * co, 1.0, dev, tol, 0, "sin^2+cos^2"});
            }
          }
        }
      });
  v.holds = bad == 0;
  v.figures["violations"] = static_cast<double>(bad);
  v.figures["identity_worst_fraction_of_tolerance"] = worst_identity;
  v.summary = v.holds ? fmt::format(
                            "all {} values finite and in [-{:.7g}, {:.7g}]; sin^2+cos^2-{} at most "
                            "{:.3g} of its tolerance",
                            v.checked, bound, bound, att == 1 ? "1" : "att^2", worst_identity)
                      : fmt::format("{} violations among {} values", bad, v.checked);
  return v;
}

}  // namespace pev::properties
