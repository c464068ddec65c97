#include "peverify/encoding/sinusoids/alibi.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "peverify/encoding/model_config.h"

namespace pev {

std::vector<AlibiSlope> alibi_slopes(int heads, double max_bias, AlibiRule rule) {
  if (heads < 1 || heads > 1 << 16)
    throw ConfigError(fmt::format("ALiBi needs 1 to 65536 heads, got {}", heads));
  if (!(std::isfinite(max_bias) && max_bias > 0 && max_bias <= 1024))
    throw ConfigError(fmt::format(
        "--alibi-max-bias must be a number in (0, 1024] (models use 8), got {}", max_bias));
  const int64_t n = heads;
  const int64_t c = rule == AlibiRule::kGeometric
                        ? n
                        : int64_t{1} << (std::bit_width(static_cast<uint64_t>(n)) - 1);
  std::vector<AlibiSlope> slopes;
  for (int64_t h = 0; h < c; ++h) slopes.push_back({h + 1, c, h + 1});
  // The doubled count's odd slopes: m1 = 2^(-max_bias/(2c)), m1^(2k+1).
  for (int64_t k = 0; k < n - c; ++k) slopes.push_back({2 * k + 1, 2 * c, 2 * k + 1});
  return slopes;
}

double slope_value(const AlibiSlope& s, double max_bias) {
  return std::exp2(-max_bias * static_cast<double>(s.numerator) /
                   static_cast<double>(s.denominator));
}

}  // namespace pev
