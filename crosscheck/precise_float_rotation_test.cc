// The float rotation's pattern limit (float_rotation_limit, precise_fill.h) against the argument
// it stands for (float_rotation-inl.h): a rotated value y_f within E(y_f) = A B + 2^-24 |y_f| of
// the exact x, rounded to nearest (either tie) to a magnitude at or above the limit, is one of the
// two 16-bit values bracketing x; and just below the limit that fails for some x. Rounding and
// bracketing are found here by walking the format's values, not by the gap the limit is computed
// from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "peverify/core/precise/plan.h"
#include "peverify/core/precise/precise_fill.h"
#include "peverify/encoding/format.h"

namespace pev::core::precise {
namespace {

// The signed value of a sign-magnitude pattern index: k < 0 is -decode(-k).
double value_at(int64_t k, Dtype output) {
  return k < 0 ? -decode(static_cast<uint64_t>(-k), output)
               : decode(static_cast<uint64_t>(k), output);
}

// Indices of the values nearest y among [lo, hi] (two at a tie).
std::vector<int64_t> nearest(double y, int64_t lo, int64_t hi, Dtype output) {
  std::vector<int64_t> best;
  double best_distance = INFINITY;
  for (int64_t k = lo; k <= hi; ++k) {
    const double distance = std::fabs(value_at(k, output) - y);
    if (distance < best_distance) {
      best.clear();
      best_distance = distance;
    }
    if (distance == best_distance) best.push_back(k);
  }
  return best;
}

// Whether value k brackets x: it is x, or x lies strictly between it and its neighbour towards x.
bool brackets(int64_t k, double x, Dtype output) {
  const double v = value_at(k, output);
  if (v == x) return true;
  const double inner = value_at(v < x ? k + 1 : k - 1, output);
  return v < x ? inner > x : inner < x;
}

struct Verdict {
  std::optional<int64_t> accepted_unfaithful;  // a pattern at or above the limit, unfaithful
  bool below_limit_fails = false;              // the pattern just below the limit can be unfaithful
  int64_t limit = 0;
  int64_t judged = 0;  // candidate roundings at or above the limit, faithful or not
};

// Rotated values y_f around each value of magnitude within `reach` patterns of the limit (both
// signs): the value, the midpoints with its neighbours (ties: either rounding), and points a
// fraction of the bound inside them; exact values x = y_f -+ E(y_f), -+ E(y_f) / 2.
Verdict adversary(Dtype output, double bound, int64_t reach) {
  const int64_t limit = float_rotation_limit(output, bound);
  Verdict verdict;
  verdict.limit = limit;
  for (int64_t m = std::max<int64_t>(1, limit - reach); m <= limit + reach; ++m) {
    for (const int64_t sign : {1, -1}) {
      const int64_t k = sign * m;
      const double v = value_at(k, output);
      const double below = (v + value_at(k - sign, output)) / 2;
      const double above = (v + value_at(k + sign, output)) / 2;
      const double inside = sign * bound / 3;  // towards v from `below`
      for (const double y : {v, below, above, below + inside, above - inside}) {
        const double e = bound + kFloatRotationRelative * std::fabs(y);
        for (const double x : {y - e, y + e, y - e / 2, y + e / 2}) {
          for (const int64_t r : nearest(y, k - sign * 3, k + sign * 3, output)) {
            const int64_t magnitude = r < 0 ? -r : r;
            verdict.judged += magnitude >= limit;
            if (brackets(r, x, output)) continue;
            if (magnitude >= limit) verdict.accepted_unfaithful = r;
            if (magnitude == limit - 1) verdict.below_limit_fails = true;
          }
        }
      }
    }
  }
  return verdict;
}

Plan with_attention(double a) {
  Plan plan;
  plan.attention = a;
  return plan;
}

TEST(FloatRotationLimit, KeepsValuesAboveTwoToMinus11InFloat16AndMinus14InBFloat16) {
  const Plan plan = with_attention(1.0);
  // The gap below 2^-11 in float16 (2^-14 in bfloat16) is 2^-22, under 2 E = 2^-21.4; the gap
  // above, 2^-21, exceeds it.
  EXPECT_EQ(float_rotation_limit(Dtype::kFloat16, float_rotation_bound(plan, Dtype::kFloat16)),
            0x1001);
  EXPECT_EQ(float_rotation_limit(Dtype::kBFloat16, float_rotation_bound(plan, Dtype::kBFloat16)),
            0x3881);
}

// A: 1, YaRN's mscale at factors 4 and 32 (0.1 ln s + 1), and near the ends of float16's range
// where some pattern is below the limit.
TEST(FloatRotationLimit, IsFaithfulAtAndAboveAndTightJustBelow) {
  for (const Dtype output : {Dtype::kFloat16, Dtype::kBFloat16}) {
    for (const double a : {1.0, 1.1386294361119891, 1.3465735902799727, 0x1p-2, 0x1.8p14}) {
      const double bound = float_rotation_bound(with_attention(a), output);
      ASSERT_GT(bound, 0) << a;
      const Verdict verdict = adversary(output, bound, 40);
      const std::string what = std::string(name_of(output)) + " A=" + std::to_string(a);
      EXPECT_EQ(verdict.accepted_unfaithful, std::nullopt) << what;
      EXPECT_GT(verdict.judged, 0) << what << ": no rounding at or above the limit judged";
      EXPECT_GT(verdict.limit, 0) << what;
      EXPECT_TRUE(verdict.below_limit_fails) << what << ": the limit is not the least";
    }
  }
}

TEST(FloatRotationLimit, IsZeroWhereEveryGapExceedsTheBound) {
  // float16's least gap, 2^-24, exceeds 2 E everywhere once A B < 2^-25 (A < 1/6): every pattern
  // may be kept.
  EXPECT_EQ(float_rotation_limit(Dtype::kFloat16, 0x1p-26), 0);
  // At E = 2^-25 only the gaps of 2^-23 do: above 2^-13.
  EXPECT_EQ(float_rotation_limit(Dtype::kFloat16, 0x1p-25), 0x0801);
}

// Bounds a hair under half a gap (2^-23 against the gap 2^-22 below 2^-11, float16, and below
// 2^-14, bfloat16), where only the FMA's 2^-24 |y_f| tips the balance: that part must count.
TEST(FloatRotationLimit, CountsTheErrorRelativeToTheRotatedValue) {
  for (const auto& [output, bound] : {std::pair{Dtype::kFloat16, 0x1p-23 - 0x1p-36},
                                      std::pair{Dtype::kBFloat16, 0x1p-23 - 0x1p-39}}) {
    const Verdict verdict = adversary(output, bound, 40);
    EXPECT_EQ(verdict.accepted_unfaithful, std::nullopt) << name_of(output);
    EXPECT_GT(verdict.judged, 0) << name_of(output) << ": no rounding at or above the limit judged";
    EXPECT_TRUE(verdict.below_limit_fails) << name_of(output) << ": the limit is not the least";
  }
}

}  // namespace
}  // namespace pev::core::precise
