// bounded: every value finite and in [-1, 1], and sin^2 + cos^2 = 1 within the claim.
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
  std::vector<double> w(spec.d_model / 2);
  for (int k = 0; k < spec.d_model / 2; ++k) w[k] = frequency(spec, k);
  const Claim claim = ut.claim();
  double worst_identity = 0;
  uint64_t bad = 0;
  internal::for_each_chunk(
      ut, spec, count, [&](uint64_t first, const std::vector<double>& t, uint64_t n) {
        for (uint64_t r = 0; r < n; ++r) {
          const uint64_t pos = spec.start + first + r;
          const double* row = t.data() + r * width;
          for (int c = 0; c < width; ++c) {
            ++v.checked;
            if (!std::isfinite(row[c]) || std::fabs(row[c]) > 1) {
              ++bad;
              measure::keep_worst(v.worst,
                                  {pos, c, row[c], std::clamp(row[c], -1.0, 1.0),
                                   std::isnan(row[c]) ? NAN : std::fabs(row[c]) - 1, 0, 0,
                                   std::isfinite(row[c]) ? "out of [-1, 1]" : "not finite"});
            }
          }
          for (int k = 0; k < static_cast<int>(cols.size()); ++k) {
            if (cols[k].sin < 0 || cols[k].cos < 0) continue;
            const double s = row[cols[k].sin], co = row[cols[k].cos];
            if (!std::isfinite(s) || !std::isfinite(co)) continue;
            const double a = static_cast<double>(pos) * w[k];
            const double steps = static_cast<double>(ut.steps_since_direct(pos));
            const double es = allowed_near(claim, s, a, steps, ut.output());
            const double ec = allowed_near(claim, co, a, steps, ut.output());
            // |(s+e_s)^2 + (c+e_c)^2 - 1| <= 2|s||e_s| + 2|c||e_c| + e_s^2 + e_c^2, plus the
            // evaluation's own rounding in double.
            const double tol =
                2 * (std::fabs(s) * es + std::fabs(co) * ec) + es * es + ec * ec + 0x1p-50;
            const double dev = std::fabs(s * s + co * co - 1);
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
                            "all {} values finite and in [-1, 1]; sin^2+cos^2-1 at most {:.3g} of "
                            "its tolerance",
                            v.checked, worst_identity)
                      : fmt::format("{} violations among {} values", bad, v.checked);
  return v;
}

}  // namespace pev::properties
