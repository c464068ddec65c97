#include "peverify/measure/judge.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace pev::measure {
namespace {

TableSpec spec_of(int d) {
  TableSpec s;
  s.d_model = d;
  return s;
}

TEST(Judge, ExactValuesAreWithinEveryClaim) {
  const TableSpec spec = spec_of(4);
  const std::vector<double> exact = {0.25, 0.75, -0.5, 1.0};
  for (const Claim& claim : {Claim::model(Dtype::kFloat32), Claim::faithful(), Claim::strict()}) {
    const Judge judge(spec, claim, Dtype::kFloat32);
    Figures f;
    EXPECT_EQ(judge.add_row(7, 0, exact.data(), exact.data(), f), 0.0);
    EXPECT_EQ(f.elements, 4u);
    EXPECT_EQ(f.over_claim, 0u);
    EXPECT_EQ(f.max_abs, 0.0);
  }
}

TEST(Judge, AnElementOutsideTheClaimIsCountedAndNamed) {
  const TableSpec spec = spec_of(4);
  const std::vector<double> exact = {0.25, 0.75, -0.5, 1.0};
  std::vector<double> got = exact;
  got[2] += 3 * 0x1p-24;  // three float32 ulps at 0.5: not faithful
  const Judge judge(spec, Claim::faithful(), Dtype::kFloat32);
  Figures f;
  std::vector<Finding> worst;
  EXPECT_EQ(judge.add_row(9, 0, got.data(), exact.data(), f, &worst), 3 * 0x1p-24);
  EXPECT_EQ(f.over_claim, 1u);
  ASSERT_EQ(worst.size(), 1u);
  EXPECT_EQ(worst[0].pos, 9u);
  EXPECT_EQ(worst[0].column, 2);
  EXPECT_EQ(worst[0].what, "number");
  EXPECT_EQ(f.worst_pos, 9u);
  EXPECT_EQ(f.worst_column, 2);
  EXPECT_GT(f.worst_fraction, 1.0);
}

TEST(Judge, NaNAndInfAreCategoriesOutsideEveryClaim) {
  const TableSpec spec = spec_of(4);
  const std::vector<double> exact = {0.25, 0.75, -0.5, 1.0};
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> got = {std::nan(""), 0.75, -inf, 1.0};
  const Judge judge(spec, Claim::model(Dtype::kFloat64, 1e6, 0.5), Dtype::kFloat32);
  Figures f;
  std::vector<Finding> worst;
  EXPECT_EQ(judge.add_row(1, 0, got.data(), exact.data(), f, &worst), inf);
  EXPECT_EQ(f.nan, 1u);
  EXPECT_EQ(f.inf, 1u);
  EXPECT_EQ(f.over_claim, 2u);
  EXPECT_EQ(f.max_abs, 0.0);  // over the numbers
  EXPECT_EQ(f.max_abs_or_inf(), inf);
  EXPECT_EQ(worst.size(), 2u);
  EXPECT_TRUE(std::isnan(worst[0].error));
}

TEST(Judge, MinusZeroForPlusZeroFailsEveryClaimAsASignMismatch) {
  const TableSpec spec = spec_of(2);
  const std::vector<double> exact = {0.0, 1.0}, got = {-0.0, 1.0};
  for (const Claim& claim : {Claim::model(Dtype::kFloat32), Claim::faithful(), Claim::strict()})
    for (const bool by_encoding : {false, true}) {
      const Judge judge(spec, claim, Dtype::kFloat32);
      Figures f;
      std::vector<Finding> worst;
      judge.add_row(0, 0, got.data(), exact.data(), f, &worst,
                    by_encoding ? exact.data() : nullptr);
      EXPECT_EQ(f.sign_mismatch, 1u) << claim.describe();
      EXPECT_EQ(f.over_claim, 1u) << claim.describe();
      EXPECT_EQ(f.failed_sign, 1u) << claim.describe();
      EXPECT_EQ(f.failed_value, 0u) << claim.describe();
      ASSERT_EQ(worst.size(), 1u);
      EXPECT_EQ(worst[0].what, "sign");
      EXPECT_EQ(worst[0].column, 0);
    }
}

TEST(Judge, ASignTheModelBudgetDoesNotFixIsCountedNotFailed) {
  // Near a zero of cos at a large angle the budget exceeds the value: its sign is not claimed.
  const TableSpec spec = spec_of(2);
  const Judge judge(spec, Claim::model(Dtype::kFloat32), Dtype::kFloat32);
  const std::vector<double> exact = {0.5, 1e-4}, got = {0.5, -1e-4};
  Figures f;
  judge.add_row(1u << 20, 0, got.data(), exact.data(), f);
  EXPECT_EQ(f.sign_mismatch, 1u);
  EXPECT_EQ(f.over_claim, 0u);
  // A negated value the budget does fix fails as a sign mismatch.
  const std::vector<double> negated = {-0.5, 1e-4};
  Figures g;
  Judge(spec, Claim::model(Dtype::kFloat32), Dtype::kFloat32)
      .add_row(3, 0, negated.data(), exact.data(), g);
  EXPECT_EQ(g.failed_sign, 1u);
}

TEST(Judge, StrictComparesEncodingsWithTheCorrectlyRoundedValue) {
  const TableSpec spec = spec_of(2);
  const Judge judge(spec, Claim::strict(), Dtype::kFloat32);
  // Exact values between float32 neighbours; the correctly rounded ones, and the other rounding.
  const double exact[] = {0.75 + 0x1p-26, 0.5 - 0x1p-27};
  const double rounded[] = {0.75, 0.5};
  const double other_way[] = {0.75 + 0x1p-24, 0.5 - 0x1p-25};
  Figures ok, bad;
  std::vector<Finding> worst;
  judge.add_row(5, 0, rounded, exact, ok, nullptr, rounded);
  judge.add_row(5, 0, other_way, exact, bad, &worst, rounded);
  EXPECT_EQ(ok.over_claim, 0u);
  EXPECT_EQ(bad.over_claim, 2u);
  EXPECT_EQ(bad.failed_value, 2u);
  EXPECT_EQ(worst[0].what, "number");
}

TEST(Judge, FaithfulAcceptsEitherBracketingFloatAndNothingElse) {
  const TableSpec spec = spec_of(2);
  const Judge judge(spec, Claim::faithful(), Dtype::kFloat32);
  const double exact[] = {0.75 + 0x1p-26, 0.5 - 0x1p-27};
  const double rounded[] = {0.75, 0.5};
  const double other_way[] = {0.75 + 0x1p-24, 0.5 - 0x1p-25};   // the other bracket: faithful
  const double two_away[] = {0.75 - 0x1p-24, 0.5 + 0x1p-24};    // beyond the bracket
  const double two_floats[] = {0.75 + 0x1p-23, 0.5 - 0x1p-24};  // two floats away
  Figures a, b, c;
  std::vector<Finding> worst;
  judge.add_row(5, 0, other_way, exact, a, nullptr, rounded);
  judge.add_row(5, 0, two_away, exact, b, nullptr, rounded);
  judge.add_row(5, 0, two_floats, exact, c, &worst, rounded);
  EXPECT_EQ(a.over_claim, 0u);
  EXPECT_EQ(b.over_claim, 2u);
  EXPECT_EQ(c.over_claim, 2u);
  ASSERT_FALSE(worst.empty());
  EXPECT_EQ(worst[0].pos, 5u);
}

TEST(Judge, FaithfulAtAnExactValueAcceptsItAlone) {
  // cos 0 = 1 exactly: 1 - 2^-24 is within an ulp but does not bracket 1.
  const TableSpec spec = spec_of(2);
  const Judge judge(spec, Claim::faithful(), Dtype::kFloat32);
  const double exact[] = {0.0, 1.0};
  const double below[] = {0.0, 1.0 - 0x1p-24};
  Figures f;
  judge.add_row(0, 0, below, exact, f, nullptr, exact);
  EXPECT_EQ(f.failed_value, 1u);
}

TEST(FormatNeighbour, StepsAcrossBinadesSubnormalsAndZero) {
  EXPECT_EQ(format_neighbour(1.0, -1, Dtype::kFloat32, 1.0), 1.0 - 0x1p-24);
  EXPECT_EQ(format_neighbour(1.0, 1, Dtype::kFloat32, 1.0), 1.0 + 0x1p-23);
  EXPECT_EQ(format_neighbour(-1.0, 1, Dtype::kFloat32, -1.0), -1.0 + 0x1p-24);
  EXPECT_EQ(format_neighbour(1.0, -1, Dtype::kBFloat16, 1.0), 1.0 - 0x1p-8);
  EXPECT_EQ(format_neighbour(0x1p-14, -1, Dtype::kFloat16, 1.0), 0x1p-14 - 0x1p-24);
  EXPECT_EQ(format_neighbour(0.0, 1, Dtype::kFloat16, 1.0), 0x1p-24);
  const double zero = format_neighbour(0x1p-24, -1, Dtype::kFloat16, 1.0);
  EXPECT_EQ(zero, 0.0);
  EXPECT_FALSE(std::signbit(zero));
  EXPECT_TRUE(std::signbit(format_neighbour(-0x1p-24, 1, Dtype::kFloat16, -1.0)));
}

TEST(Judge, BudgetsThatCheckNothingAreCountedFromTheirFirstPosition) {
  // float32 computation, base 1e4, d 2: w = 1, so the budget C u pos passes 0.1 near pos 52429.
  const TableSpec spec = spec_of(2);
  const Judge judge(spec, Claim::model(Dtype::kFloat32), Dtype::kFloat32);
  Figures f;
  for (const uint64_t pos : {uint64_t{1000}, uint64_t{60000}, uint64_t{600000}}) {
    const double s = std::sin(static_cast<double>(pos)), c = std::cos(static_cast<double>(pos));
    const std::vector<double> row = {s, c};
    judge.add_row(pos, 0, row.data(), row.data(), f);
  }
  EXPECT_EQ(f.vacuous[0], 4u);  // 60000 and 600000, sin and cos
  EXPECT_EQ(f.first_vacuous_pos[0], 60000u);
  EXPECT_EQ(f.vacuous[1], 2u);  // 600000 only: 32 * 2^-24 * 600000 > 1
  EXPECT_EQ(f.first_vacuous_pos[1], 600000u);
}

TEST(Figures, MergeAddsCountsAndKeepsMaxima) {
  Figures a, b;
  a.elements = 3;
  a.max_abs = 1e-3;
  a.sum_abs = 2e-3;
  a.nan = 1;
  a.first_vacuous_pos[0] = 50;
  b.elements = 5;
  b.max_abs = 2e-3;
  b.sum_abs = 1e-3;
  b.over_claim = 2;
  b.first_vacuous_pos[0] = 40;
  b.worst_fraction = 0.5;
  b.worst_pos = 77;
  a.merge(b);
  EXPECT_EQ(a.elements, 8u);
  EXPECT_EQ(a.max_abs, 2e-3);
  EXPECT_DOUBLE_EQ(a.mean_abs(), 3e-3 / 8);
  EXPECT_EQ(a.nan, 1u);
  EXPECT_EQ(a.over_claim, 2u);
  EXPECT_EQ(a.first_vacuous_pos[0], 40u);
  EXPECT_EQ(a.worst_pos, 77u);
}

TEST(KeepWorst, KeepsTheWorstByFractionOfTheBudgetNaNFirst) {
  std::vector<Finding> worst;
  for (int i = 0; i < 20; ++i) keep_worst(worst, {uint64_t(i), 0, 0, 0, i * 1.0, 10.0, 0, ""}, 4);
  keep_worst(worst, {99, 0, 0, 0, NAN, 1.0, 0, "nan"}, 4);
  ASSERT_EQ(worst.size(), 4u);
  EXPECT_EQ(worst[0].pos, 99u);
  EXPECT_EQ(worst[1].pos, 19u);
  EXPECT_EQ(worst[3].pos, 17u);
}

}  // namespace
}  // namespace pev::measure
