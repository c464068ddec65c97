// Judge::add_row's SIMD fast path (judge_row.cc) against the one-element judgement it stands in
// for: every figure of random rows (every claim kind, output format, width and alignment, with
// corruptions of every kind) equals what Judge::judge gives element by element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "peverify/measure/judge.h"

namespace pev::measure {
namespace {

// The row's figures from Judge::judge, one element at a time.
Figures reference(const Judge& judge, uint64_t pos, double steps, const double* got,
                  const double* exact, const double* rounded) {
  Figures f;
  const auto& vacuous = claim_constants().vacuous_budget;
  for (int c = 0; c < judge.width(); ++c) {
    const Judgement j =
        judge.judge(pos, c, steps, got[c], exact[c], rounded ? rounded + c : nullptr);
    ++f.elements;
    f.nan += j.error.category == Category::kNaN;
    f.inf += j.error.category == Category::kInf;
    f.sign_mismatch += j.error.category == Category::kSignMismatch;
    f.over_claim += !j.within;
    for (int v = 0; v < 2; ++v) f.vacuous[v] += j.allowed >= vacuous[v];
    if (!is_number(j.error.category)) continue;
    f.max_abs = std::max(f.max_abs, j.error.abs);
    f.max_ulp = std::max(f.max_ulp, j.error.ulp);
    f.max_ulp_floored =
        std::max(f.max_ulp_floored, floored_ulps(j.error.abs, exact[c], judge.output()));
    f.sum_abs += j.error.abs;
    // A budget of 0 (float64's smallest quanta): an error of 0 within it does not count, any
    // other judgement counts as infinitely over (Judge's slow path).
    const bool nothing_over = j.within && j.error.category == Category::kNumber;
    const double fraction =
        j.allowed > 0 ? j.error.abs / j.allowed : (nothing_over ? 0.0 : INFINITY);
    if (fraction > f.worst_fraction) {
      f.worst_fraction = fraction;
      f.worst_column = c;
    }
  }
  return f;
}

TableSpec spec_of(int d) {
  TableSpec s;
  s.d_model = d;
  return s;
}

double rounded_to(double x, Dtype t) {
  return t == Dtype::kFloat32 ? static_cast<double>(static_cast<float>(x)) : x;
}

class JudgeRowTarget : public testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { hwy::SetSupportedTargetsForTest(GetParam()); }
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

// On every SIMD target compiled here and supported by this CPU.
TEST_P(JudgeRowTarget, SameFiguresAsElementByElement) {
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> angle(-4, 4);
  const double inf = std::numeric_limits<double>::infinity();
  int rows = 0;
  for (const Dtype output : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    const double ulp_one = ulp_of(1.0, output);
    for (const Claim& claim : {Claim::model(Dtype::kFloat32), Claim::model(output, 1e7, 0.5),
                               Claim::faithful(), Claim::strict()}) {
      const bool can_round = output == Dtype::kFloat32 || output == Dtype::kFloat64;
      for (const bool by_encoding : {false, true}) {
        if (by_encoding && (!can_round || claim.kind == Claim::Kind::kModel)) continue;
        for (const int width : {2, 4, 6, 8, 10, 14, 16, 18, 34}) {
          const Judge judge(spec_of(width), claim, output);
          for (int trial = 0; trial < 12; ++trial) {
            const uint64_t pos = trial == 0 ? 0 : rng() % (trial < 6 ? 64 : 1u << 22);
            const double steps = trial % 3 == 0 ? 0 : static_cast<double>(rng() % 64);
            // One double of offset: rows need not be aligned.
            std::vector<double> x(width + 1), g(width + 1), r(width + 1);
            for (int c = 1; c <= width; ++c) {
              x[c] = c % 5 == 0 ? 0.0 : std::sin(angle(rng)) * (c % 7 == 0 ? 1e-9 : 1.0);
              r[c] = rounded_to(x[c], output);
              g[c] = r[c];
              switch (rng() % 12) {
                case 0:
                  g[c] += (static_cast<double>(rng() % 9) - 4) * ulp_one;
                  break;
                case 1:
                  g[c] = -g[c];
                  break;
                case 2:
                  g[c] = std::nan("");
                  break;
                case 3:
                  g[c] = -inf;
                  break;
                case 4:
                  g[c] += 1e-3;
                  break;
                case 5:
                  g[c] = 0.0;
                  break;
                default:
                  break;
              }
            }
            const double* rounded = by_encoding ? r.data() + 1 : nullptr;
            Figures got;
            judge.add_row(pos, steps, g.data() + 1, x.data() + 1, got, nullptr, rounded);
            const Figures want = reference(judge, pos, steps, g.data() + 1, x.data() + 1, rounded);
            SCOPED_TRACE(::testing::Message() << name_of(output) << " " << claim.describe()
                                              << " by encoding " << by_encoding << " width "
                                              << width << " pos " << pos << " steps " << steps);
            EXPECT_EQ(got.elements, want.elements);
            EXPECT_EQ(got.nan, want.nan);
            EXPECT_EQ(got.inf, want.inf);
            EXPECT_EQ(got.sign_mismatch, want.sign_mismatch);
            EXPECT_EQ(got.over_claim, want.over_claim);
            EXPECT_EQ(got.vacuous[0], want.vacuous[0]);
            EXPECT_EQ(got.vacuous[1], want.vacuous[1]);
            EXPECT_EQ(got.max_abs, want.max_abs);
            EXPECT_EQ(got.max_ulp, want.max_ulp);
            EXPECT_EQ(got.max_ulp_floored, want.max_ulp_floored);
            EXPECT_EQ(got.worst_fraction, want.worst_fraction);
            if (want.worst_fraction > 0) {
              EXPECT_EQ(got.worst_column, want.worst_column);
            }
            EXPECT_NEAR(got.sum_abs, want.sum_abs, 1e-12 * want.sum_abs);
            ++rows;
          }
        }
      }
    }
  }
  // 9 widths x 12 trials for each of 20 (output, claim, by encoding) combinations: 4 claims of
  // each output, and by encoding too for float64's and float32's faithful and strict claims.
  EXPECT_EQ(rows, 20 * 9 * 12);
}

INSTANTIATE_TEST_SUITE_P(Highway, JudgeRowTarget,
                         testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         [](const auto& info) { return std::string(hwy::TargetName(info.param)); });

// Float64's quanta below 2^-1022 (an exact 0, in the first row): a budget of 0 for an error of 0
// is within the claim, and the worst fraction of the budget stays 0, as element by element.
TEST(JudgeRow, ZerosInFloat64SubnormalQuantaAreWithinTheClaim) {
  const std::vector<double> exact = {0.0, 1.0, 0.0, 1.0};
  for (const Claim& claim : {Claim::model(Dtype::kFloat64), Claim::faithful(), Claim::strict()}) {
    const Judge judge(spec_of(4), claim, Dtype::kFloat64);
    Figures f;
    judge.add_row(0, 0, exact.data(), exact.data(), f);
    EXPECT_EQ(f.over_claim, 0u) << claim.describe();
    EXPECT_EQ(f.worst_fraction, 0.0) << claim.describe();
    EXPECT_EQ(f.max_ulp, 0.0) << claim.describe();
  }
}

}  // namespace
}  // namespace pev::measure
