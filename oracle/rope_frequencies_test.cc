// The MPFR oracle's rotary recipes (docs/mathematics.md §6, §12.1): the worked figures, agreement
// with the double formulas of encoding/rope.h away from their edges, the stated error bounds of w_j
// and A against much higher precision, and the exact cases (ties of a configured attention
// factor, longrope's rational A, HF's +0.001).
#include "peverify/oracle/rope_frequencies.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "peverify/oracle/attention.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/mpfr_var.h"
#include "peverify/oracle/recipe_testutil.h"

namespace pev::oracle {
namespace {

int count(const std::vector<Llama3Band>& bands, Llama3Band b) {
  return static_cast<int>(std::count(bands.begin(), bands.end(), b));
}

double to_double(mpfr_srcptr x) { return mpfr_get_d(x, MPFR_RNDN); }

TEST(RecipeFrequencies, WorkedFigures) {
  const Frequencies qwen(recipes::qwen25_yarn());
  const YarnRamp& q = *qwen.recipe()->yarn();
  EXPECT_FALSE(q.low.is_cd);
  EXPECT_EQ(to_double(q.low.integer), 23);
  EXPECT_EQ(to_double(q.high.integer), 40);
  EXPECT_FALSE(q.high.plus_thousandth);
  EXPECT_EQ(q.ramp[23], Ramp::kZero);
  EXPECT_EQ(q.ramp[24], Ramp::kFraction);
  EXPECT_EQ(q.ramp[39], Ramp::kFraction);
  EXPECT_EQ(q.ramp[40], Ramp::kOne);
  EXPECT_NEAR(to_double(Attention(recipes::qwen25_yarn()).cached()), 1.138629, 5e-7);

  const Frequencies deepseek(recipes::deepseek_v3(1, 1));
  EXPECT_EQ(to_double(deepseek.recipe()->yarn()->low.integer), 10);
  EXPECT_EQ(to_double(deepseek.recipe()->yarn()->high.integer), 23);
  EXPECT_TRUE(Attention(recipes::deepseek_v3(1, 1)).is_one());
  EXPECT_FALSE(Attention(recipes::deepseek_v3(0.707, 1)).exact());

  const Frequencies llama(recipes::llama31());
  const std::vector<Llama3Band>& bands = llama.recipe()->llama3_bands();
  EXPECT_EQ(count(bands, Llama3Band::kHigh), 29);
  EXPECT_EQ(count(bands, Llama3Band::kMedium), 6);
  EXPECT_EQ(count(bands, Llama3Band::kLow), 29);

  const Attention phi(recipes::phi3_longrope(8192, 1));
  EXPECT_FALSE(phi.exact());  // sqrt(17/12)
  EXPECT_NEAR(to_double(phi.cached()), 1.190238, 5e-7);
}

// Away from the edges, where double cannot put a pair in another branch, the exact frequencies
// and attention factor are the double formulas' to ~1e-12: both read Hugging Face the same way.
TEST(RecipeFrequencies, AgreeWithTheDoubleFormulas) {
  for (const TableSpec& spec : recipes::random_recipes(11, 140)) {
    SCOPED_TRACE(recipes::describe_recipe(spec));
    const Frequencies f(spec);
    for (int j = 0; j < spec.d_model / 2; ++j) {
      const double want = rope_double::frequency(spec.rope, spec.base, spec.d_model, j);
      EXPECT_NEAR(to_double(f.cached(j)) / want, 1.0, 1e-11) << "pair " << j;
    }
    EXPECT_NEAR(to_double(Attention(spec).cached()) / rope_double::attention_factor(spec.rope), 1.0,
                1e-13);
  }
}

// |x_P - x| <= 2^(c - P) |x| for x computed at P bits, checked against 4P + 256 bits (whose own
// error, 2^(c - 4P - 256), is added to the allowance). Returns the largest error / bound seen.
template <class Compute>
double check_bound(Compute compute, int c, const std::string& what) {
  double worst = 0;
  for (const mpfr_prec_t p : {64, 97, 160, 333}) {
    const mpfr_prec_t reference = 4 * p + 256;
    MpfrVar x(p), ref(reference), diff(reference + 64);
    compute(p, x.get());
    compute(reference, ref.get());
    mpfr_sub(diff, x, ref, MPFR_RNDA);
    mpfr_div(diff, diff, ref, MPFR_RNDA);
    mpfr_abs(diff, diff, MPFR_RNDA);
    mpfr_mul_2si(diff, diff, p - c, MPFR_RNDA);  // error / 2^(c - p)
    const double ratio = mpfr_get_d(diff, MPFR_RNDA);
    EXPECT_LE(ratio, 1.0 + std::ldexp(1.0, static_cast<int>(p - reference + 1)))
        << what << " at " << p << " bits";
    worst = std::max(worst, ratio);
  }
  return worst;
}

TEST(RecipeFrequencies, StatedErrorBoundsHold) {
  std::vector<TableSpec> specs = recipes::random_recipes(12, 70);
  // A fractional ramp of width 0.001 between cd ends (beta_fast == beta_slow, not truncated):
  // the ramp's bound at its most ill-conditioned. cd(beta) = 30 - 0.0005 for d 128, base 1e6.
  TableSpec narrow = recipes::qwen25_yarn();
  narrow.rope.truncate = false;
  narrow.rope.beta_fast = narrow.rope.beta_slow =
      32768 / (2 * std::numbers::pi * std::pow(1e6, 2 * (30 - 0.0005) / 128));
  specs.push_back(narrow);
  double worst_w = 0, worst_a = 0;
  for (const TableSpec& spec : specs) {
    SCOPED_TRACE(recipes::describe_recipe(spec));
    const Frequencies f(spec);
    for (int j = 0; j < spec.d_model / 2; j += 3)
      worst_w =
          std::max(worst_w, check_bound([&](mpfr_prec_t p, mpfr_ptr out) { f.compute(j, p, out); },
                                        f.log2_error_factor(), "w_" + std::to_string(j)));
    const Attention a(spec);
    worst_a = std::max(worst_a, check_bound([&](mpfr_prec_t p, mpfr_ptr out) { a.compute(p, out); },
                                            a.log2_error_factor(), "A"));
  }
  RecordProperty("worst_frequency_error_over_bound", std::to_string(worst_w));
  RecordProperty("worst_attention_error_over_bound", std::to_string(worst_a));
  EXPECT_GT(worst_w, 0.0);  // the comparison saw rounding errors at all
}

TEST(RecipeFrequencies, HuggingFacesThousandthWidensAnEmptyRamp) {
  // Not truncated, beta_fast == beta_slow: high = cd + 0.001, and pair 30 lies inside.
  TableSpec narrow = recipes::qwen25_yarn();
  narrow.rope.truncate = false;
  narrow.rope.beta_fast = narrow.rope.beta_slow =
      32768 / (2 * std::numbers::pi * std::pow(1e6, 2 * (30 - 0.0005) / 128));
  const Frequencies narrow_frequencies(narrow);
  const YarnRamp& n = *narrow_frequencies.recipe()->yarn();
  EXPECT_TRUE(n.low.is_cd);
  EXPECT_TRUE(n.high.plus_thousandth);
  EXPECT_EQ(n.ramp[29], Ramp::kZero);
  EXPECT_EQ(n.ramp[30], Ramp::kFraction);
  EXPECT_EQ(n.ramp[31], Ramp::kOne);
  EXPECT_NEAR(n.width_min, 0.001, 1e-9);

  // Truncated with floor(cd(32)) <= 0 and ceil(cd(1)) = 0: both ends 0, high = 0.001, so pair 0
  // keeps theta and every other pair is divided by s.
  TableSpec tiny = recipes::qwen25_yarn();
  tiny.rope.original_max_position = 6;  // cd(1) = 64 ln(6 / 2 pi) / ln 1e6 = -0.21: ceil 0
  const Frequencies tiny_frequencies(tiny);
  const YarnRamp& t = *tiny_frequencies.recipe()->yarn();
  EXPECT_EQ(to_double(t.low.integer), 0);
  EXPECT_TRUE(t.high.plus_thousandth);
  EXPECT_EQ(t.ramp[0], Ramp::kZero);
  for (int j = 1; j < 64; ++j) EXPECT_EQ(t.ramp[j], Ramp::kOne) << j;
}

TEST(Attention, ExactWhereItIsAKnownNumber) {
  TableSpec spec = recipes::phi3_longrope(8192, 1);
  spec.rope.max_position = uint64_t{4096} << 15;  // ln t / ln L0 = 15/12: A = sqrt(9/4) = 1.5
  EXPECT_EQ(Attention(spec).exact(), 1.5);
  spec.rope.max_position = uint64_t{4096} << 36;  // 36/12: A = 2
  EXPECT_EQ(Attention(spec).exact(), 2.0);
  spec.rope.max_position = uint64_t{4096} * 4096;  // A = sqrt(2): irrational
  EXPECT_FALSE(Attention(spec).exact());
  spec.rope.max_position = uint64_t{4096} * 3;  // ln 3 / ln 4096: transcendental
  EXPECT_FALSE(Attention(spec).exact());
  spec.rope.max_position = 0;
  spec.rope.factor = 0x1p15;  // t from the factor: 1.5 again
  EXPECT_EQ(Attention(spec).exact(), 1.5);
  spec.rope.max_position = 1000;  // t < 1: A = 1
  EXPECT_TRUE(Attention(spec).is_one());

  TableSpec yarn = recipes::qwen25_yarn();
  yarn.rope.attention_factor = 0.75;
  EXPECT_EQ(Attention(yarn).exact(), 0.75);
  yarn.rope.attention_factor.reset();
  yarn.rope.factor = 0.5;  // s <= 1: g = 1
  EXPECT_TRUE(Attention(yarn).is_one());
}

// Gemma 4's proportional RoPE: 64 of 256 pairs turn; the other 192 have w = 0 exactly, so both
// engines give cos exactly 1 and sin +0 there at every position, and the rotated ones agree.
TEST(RecipeFrequencies, ProportionalTailIsExactlyZeroInBothEngines) {
  TableSpec spec = grid_spec(512, 1e6);
  spec.rope.type = RopeType::kProportional;
  spec.rope.partial_rotary_factor = 0.25;
  const Frequencies w(spec);
  for (int j = 0; j < 256; ++j) {
    EXPECT_EQ(w.zero(j), j >= 64) << j;
    if (j >= 64) {
      EXPECT_TRUE(mpfr_zero_p(w.cached(j))) << j;
    }
  }
  EXPECT_EQ(to_double(w.cached(1)), std::pow(1e6, -2.0 / 512));  // over head_dim, not 128
  const Tile tile{(uint64_t{1} << 40) - 8, 8, 0, 256};
  TileValues fast, mpfr;
  make_fast_engine(spec, Dtype::kBFloat16)->evaluate(tile, fast);
  make_mpfr_engine(spec, Dtype::kBFloat16)->evaluate(tile, mpfr);
  // 8 rows of 256 pairs, 192 of each in the tail.
  ASSERT_EQ(fast.cos_rounded.size(), 8u * 256);
  ASSERT_EQ(mpfr.cos_rounded.size(), fast.cos_rounded.size());
  for (size_t i = 0; i < fast.cos_rounded.size(); ++i) {
    EXPECT_EQ(fast.cos_rounded[i], mpfr.cos_rounded[i]) << i;
    EXPECT_EQ(fast.sin_exact[i], mpfr.sin_exact[i]) << i;
    if (i % 256 < 64) continue;
    EXPECT_EQ(fast.cos_exact[i], 1.0) << i;
    EXPECT_EQ(fast.sin_rounded[i], 0.0) << i;
    EXPECT_FALSE(std::signbit(fast.sin_rounded[i])) << i;
  }
}

TEST(Attention, ExactValuesRoundTiesToEven) {
  TableSpec spec = recipes::qwen25_yarn();
  for (const auto& [a, want] : {std::pair{1 + 0x1p-8, 1.0}, std::pair{1 + 0x3p-8, 1 + 0x1p-6}}) {
    spec.rope.attention_factor = a;  // halfway between two bfloat16 numbers
    EXPECT_EQ(Attention(spec).rounded(Dtype::kBFloat16), want) << a;
    EXPECT_EQ(Attention(spec).rounded(Dtype::kFloat64), a);
  }
  spec.rope.attention_factor = 1e5;  // beyond float16's largest finite number
  EXPECT_EQ(Attention(spec).rounded(Dtype::kFloat16), INFINITY);
  EXPECT_EQ(Attention(spec).rounded(Dtype::kFloat32), 100000.0);
}

}  // namespace
}  // namespace pev::oracle
