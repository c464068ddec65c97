// The declarations of the other sinusoidal tables (docs/features.md §16): the timestep recipes and
// their roundings, the multi-axis column map, and ALiBi's rule.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/sinusoids/alibi.h"
#include "peverify/encoding/sinusoids/rope_axes.h"
#include "peverify/encoding/sinusoids/timestep.h"

namespace pev {
namespace {

TEST(RoundTo, RoundsOnceToNearestEven) {
  EXPECT_EQ(round_to(750.0, 0, Dtype::kBFloat16), 752.0);  // diffusers#9405's 750 -> 752
  EXPECT_EQ(round_to(0.1, 0, Dtype::kFloat32), static_cast<double>(0.1f));
  EXPECT_EQ(round_to(2.5 * 128, 0, Dtype::kBFloat16), 320.0);  // exact
  // 257 lies halfway between bfloat16's 256 and 258: ties to even (256), unless lo says above.
  EXPECT_EQ(round_to(257.0, 0, Dtype::kBFloat16), 256.0);
  EXPECT_EQ(round_to(257.0, 1e-9, Dtype::kBFloat16), 258.0);
  EXPECT_EQ(round_to(259.0, -1e-9, Dtype::kBFloat16), 258.0);
  EXPECT_EQ(round_to(-257.0, -1e-9, Dtype::kBFloat16), -258.0);
  EXPECT_EQ(round_to(70000.0, 0, Dtype::kFloat16), std::numeric_limits<double>::infinity());
  EXPECT_EQ(round_to(65504.0, 0, Dtype::kFloat16), 65504.0);
  EXPECT_EQ(round_to(0x1p-25, 0, Dtype::kFloat16), 0.0);  // below half the smallest subnormal
  EXPECT_EQ(round_to(0x1.8p-24, 0, Dtype::kFloat16), 0x1p-23);
}

TEST(TimestepRecipe, PresetsAreTheModelsTables) {
  const TimestepRecipe adm = parse_timestep_recipe("adm");
  EXPECT_TRUE(adm.flip_sin_to_cos);
  EXPECT_EQ(adm.downscale_freq_shift, 0);
  const TimestepRecipe ddpm = parse_timestep_recipe("ddpm");
  EXPECT_FALSE(ddpm.flip_sin_to_cos);
  EXPECT_EQ(ddpm.downscale_freq_shift, 1);
  EXPECT_EQ(parse_timestep_recipe("flux").time_factor, 1000);
  EXPECT_EQ(parse_timestep_recipe("qwen-image").scale, 1000);
  EXPECT_EQ(parse_timestep_recipe("wan").timestep_dtype, Dtype::kFloat64);
  const TimestepRecipe custom =
      parse_timestep_recipe(R"({"preset": "flux", "timestep_dtype": "bfloat16"})");
  EXPECT_EQ(custom.time_factor, 1000);
  EXPECT_EQ(custom.timestep_dtype, Dtype::kBFloat16);
  EXPECT_EQ(timestep_argument(custom, 0.75), 752.0);
  EXPECT_EQ(timestep_argument(parse_timestep_recipe("flux"), 0.75), 750.0);
}

TEST(TimestepRecipe, RefusesWhatIsNoRecipe) {
  EXPECT_THROW(parse_timestep_recipe("sdxxl"), ConfigError);
  EXPECT_THROW(parse_timestep_recipe(R"({"max_perod": 1})"), ConfigError);
  EXPECT_THROW(parse_timestep_recipe(R"({"downscale_freq_shift": 0.5})"), ConfigError);
  EXPECT_THROW(parse_timestep_recipe(R"({"timestep_dtype": "int8"})"), ConfigError);
  EXPECT_THROW(parse_timestep_recipe(R"({"scale": 0})"), ConfigError);
  EXPECT_THROW(parse_timestep_recipe("/no/such/recipe.json"), ConfigError);
  EXPECT_THROW(timestep_table(parse_timestep_recipe("ddpm"), 2), ConfigError);  // h - s = 0
  TimestepRecipe f16 = parse_timestep_recipe("flux");
  f16.timestep_dtype = Dtype::kFloat16;
  EXPECT_THROW(timestep_argument(f16, 70.0), ConfigError);  // 70000 is beyond float16
}

TEST(TimestepTable, ColumnsFollowTheRecipe) {
  const SinusoidTable t = timestep_table(parse_timestep_recipe("adm"), 7);  // h = 3, a pad
  ASSERT_EQ(t.width(), 7);
  EXPECT_EQ(t.columns[0].wave, Wave::kCos);
  EXPECT_EQ(t.columns[3].wave, Wave::kSin);
  EXPECT_EQ(t.columns[5].frequency, 2);
  EXPECT_EQ(t.columns[6].wave, Wave::kZero);
  EXPECT_EQ(t.frequencies[2].denominator, 3);  // -k / (h - s), s = 0
  const SinusoidTable d = timestep_table(parse_timestep_recipe("ddpm"), 8);
  EXPECT_EQ(d.columns[0].wave, Wave::kSin);
  EXPECT_EQ(d.frequencies[3].denominator, 3);  // h - 1
  EXPECT_DOUBLE_EQ(d.frequencies[3].value(), 1e-4);
}

TEST(RopeAxes, BlocksInAxisOrderEachInTheLayout) {
  const RopeAxes flux = parse_rope_axes("flux", std::nullopt);
  const SinusoidTable t = rope_axes_table(flux, Layout::kRopeCosPairs);
  ASSERT_EQ(t.width(), 128);
  EXPECT_EQ(t.columns[15].axis, 0);
  EXPECT_EQ(t.columns[16].axis, 1);
  EXPECT_EQ(t.columns[16].frequency, t.columns[17].frequency);  // each cos twice in a row
  EXPECT_EQ(t.columns[72].axis, 2);
  const SinusoidFrequency& w = t.frequencies[static_cast<size_t>(t.columns[18].frequency)];
  EXPECT_EQ(w.numerator, -2);  // theta^(-2j/d_i), j = 1 of the 56-dim axis
  EXPECT_EQ(w.denominator, 56);
  EXPECT_EQ(rope_axes_table(flux, Layout::kRopeCos).width(), 64);
  EXPECT_EQ(parse_rope_axes("32,32", 2000.0).base, 2000);
  EXPECT_THROW(parse_rope_axes("flux", 256.0), ConfigError);
  EXPECT_THROW(parse_rope_axes("16,55", std::nullopt), ConfigError);
  EXPECT_THROW(parse_rope_axes("16,,56", std::nullopt), ConfigError);
  EXPECT_THROW(parse_rope_axes("fluxx", std::nullopt), ConfigError);
}

TEST(Alibi, TheAuthorsRule) {
  const auto eight = alibi_slopes(8, 8, AlibiRule::kReference);
  EXPECT_DOUBLE_EQ(slope_value(eight[0], 8), 0.5);
  EXPECT_DOUBLE_EQ(slope_value(eight[7], 8), 1.0 / 256);
  const auto twelve = alibi_slopes(12, 8, AlibiRule::kReference);
  ASSERT_EQ(twelve.size(), 12u);
  EXPECT_DOUBLE_EQ(slope_value(twelve[7], 8), 1.0 / 256);
  EXPECT_DOUBLE_EQ(slope_value(twelve[8], 8), std::sqrt(0.5));  // 2^(-8/16), the doubled count
  EXPECT_DOUBLE_EQ(slope_value(twelve[9], 8), std::pow(2.0, -1.5));
  EXPECT_EQ(twelve[9].power, 3);
  const auto geometric = alibi_slopes(12, 8, AlibiRule::kGeometric);
  EXPECT_DOUBLE_EQ(slope_value(geometric[2], 8), std::pow(2.0, -2.0));
  EXPECT_THROW(alibi_slopes(0, 8, AlibiRule::kReference), ConfigError);
  EXPECT_THROW(alibi_slopes(8, -1, AlibiRule::kReference), ConfigError);
}

}  // namespace
}  // namespace pev
