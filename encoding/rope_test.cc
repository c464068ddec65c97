#include "peverify/encoding/rope.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "peverify/encoding/spec.h"

namespace pev {
namespace {

RopeScaling yarn(double factor, uint64_t L0) {
  RopeScaling r;
  r.type = RopeType::kYarn;
  r.factor = factor;
  r.original_max_position = L0;
  return r;
}

// The worked figures of ../shared/ROPE.md, from the frameworks' own numbers.
TEST(Rope, Qwen25YarnRangeAndAttention) {
  const RopeScaling r = yarn(4, 32768);
  const double cd32 = 128 * std::log(32768 / (32 * 2 * std::numbers::pi)) / (2 * std::log(1e6));
  const double cd1 = 128 * std::log(32768 / (1 * 2 * std::numbers::pi)) / (2 * std::log(1e6));
  EXPECT_NEAR(cd32, 23.60, 0.005);
  EXPECT_NEAR(cd1, 39.65, 0.005);
  const rope_double::YarnRange range = rope_double::yarn_range(r, 1e6, 128);
  EXPECT_EQ(range.low, 23);
  EXPECT_EQ(range.high, 40);
  EXPECT_NEAR(rope_double::attention_factor(r), 1.138629, 5e-7);
  // Below the range the frequency is theta (extrapolated), above it theta / s (interpolated).
  EXPECT_DOUBLE_EQ(rope_double::frequency(r, 1e6, 128, 10), std::pow(1e6, -20.0 / 128));
  EXPECT_DOUBLE_EQ(rope_double::frequency(r, 1e6, 128, 50), std::pow(1e6, -100.0 / 128) / 4);
  EXPECT_DOUBLE_EQ(rope_double::yarn_ramp(range, 31), 8.0 / 17);
}

// transformers' _compute_proportional_rope_parameters: int(p * head_dim // 2) pairs of
// theta^(-2j/head_dim) (the whole head_dim in the exponent), zeros after, all divided by factor.
TEST(Rope, ProportionalRotatesItsShareWithTheExponentOverTheWholeHead) {
  RopeScaling r;
  r.type = RopeType::kProportional;
  r.partial_rotary_factor = 0.25;
  EXPECT_EQ(parse_rope_type("proportional"), RopeType::kProportional);
  EXPECT_EQ(name_of(RopeType::kProportional), "proportional");
  EXPECT_EQ(rotated_pairs(r, 512), 64);  // Gemma 4's full-attention layers
  EXPECT_EQ(rotated_pairs(r, 256), 32);
  for (int j = 0; j < 256; ++j) {
    const double w = rope_double::frequency(r, 1e6, 512, j);
    EXPECT_EQ(w, j < 64 ? std::pow(1e6, -2.0 * j / 512) : 0.0) << j;
  }
  r.factor = 8;
  EXPECT_EQ(rope_double::frequency(r, 1e6, 512, 10), std::pow(1e6, -20.0 / 512) / 8);
  EXPECT_EQ(rope_double::frequency(r, 1e6, 512, 64), 0.0);
  EXPECT_EQ(rope_double::attention_factor(r), 1.0);
  // Python's int(0.3 * 256 // 2) = int(76.8 // 2) = 38; p = 1 is the default recipe's pairs.
  r.partial_rotary_factor = 0.3;
  EXPECT_EQ(rotated_pairs(r, 256), 38);
  r.partial_rotary_factor = 1;
  EXPECT_EQ(rotated_pairs(r, 256), 128);
  EXPECT_EQ(describe(r), "proportional(partial_rotary_factor=1, factor=8)");
  r.partial_rotary_factor = -0.5;
  ASSERT_TRUE(validate_rope(r, 256));
  EXPECT_NE(validate_rope(r, 256)->find("partial_rotary_factor"), std::string::npos);
  r.partial_rotary_factor = 0.25;
  r.factor = 0;
  EXPECT_TRUE(validate_rope(r, 256));
}

TEST(Rope, DeepSeekV3YarnRangeAndAttention) {
  RopeScaling r = yarn(40, 4096);
  r.mscale = 1.0;
  r.mscale_all_dim = 1.0;
  const rope_double::YarnRange range = rope_double::yarn_range(r, 1e4, 64);
  EXPECT_EQ(range.low, 10);
  EXPECT_EQ(range.high, 23);
  EXPECT_EQ(rope_double::attention_factor(r), 1.0);
  r.mscale_all_dim = 0.0;  // falsy in Hugging Face's test: the plain g(s, 1)
  EXPECT_NEAR(rope_double::attention_factor(r), 0.1 * std::log(40) + 1, 1e-15);
}

TEST(Rope, Llama31KeepsDividesAndSmoothsTheBands) {
  RopeScaling r;
  r.type = RopeType::kLlama3;
  r.factor = 8;
  r.low_freq_factor = 1;
  r.high_freq_factor = 4;
  r.original_max_position = 8192;
  int kept = 0, divided = 0, smoothed = 0;
  for (int j = 0; j < 64; ++j) {
    const double theta = std::pow(5e5, -2.0 * j / 128);
    const double w = rope_double::frequency(r, 5e5, 128, j);
    if (w == theta)
      ++kept;
    else if (w == theta / 8)
      ++divided;
    else
      ++smoothed;
  }
  EXPECT_EQ(kept, 29);
  EXPECT_EQ(smoothed, 6);
  EXPECT_EQ(divided, 29);
}

TEST(Rope, Phi3LongRopeAttentionAndTheFactorListBySequenceLength) {
  RopeScaling r;
  r.type = RopeType::kLongRope;
  r.original_max_position = 4096;
  r.max_position = 131072;
  r.short_factor.assign(48, 1.0);
  r.long_factor.assign(48, 2.0);
  EXPECT_NEAR(rope_double::attention_factor(r), 1.190238, 5e-7);
  r.sequence_length = 4096;
  EXPECT_DOUBLE_EQ(rope_double::frequency(r, 1e4, 96, 3), std::pow(1e4, -6.0 / 96));
  r.sequence_length = 4097;
  EXPECT_DOUBLE_EQ(rope_double::frequency(r, 1e4, 96, 3), std::pow(1e4, -6.0 / 96) / 2);
}

TEST(Rope, DynamicRescalesTheBaseOnlyBeyondTheContext) {
  RopeScaling r;
  r.type = RopeType::kDynamic;
  r.factor = 2;
  r.max_position = 4096;
  r.sequence_length = 4096;
  EXPECT_DOUBLE_EQ(rope_double::dynamic_base(r, 1e4, 128), 1e4);
  r.sequence_length = 8192;  // s n / L - (s - 1) = 3
  EXPECT_DOUBLE_EQ(rope_double::dynamic_base(r, 1e4, 128), 1e4 * std::pow(3.0, 128.0 / 126));
}

TEST(Rope, BadRecipesAreRefusedWithTheFieldNamed) {
  RopeScaling r = yarn(4, 32768);
  EXPECT_FALSE(validate_rope(r, 128));
  r.factor = 0;
  EXPECT_NE(validate_rope(r, 128)->find("factor"), std::string::npos);
  r = yarn(4, 32768);
  r.beta_fast = 0.5;
  EXPECT_NE(validate_rope(r, 128)->find("beta_fast"), std::string::npos);
  r = yarn(4, 0);
  EXPECT_NE(validate_rope(r, 128)->find("original_max_position_embeddings"), std::string::npos);
  RopeScaling lr;
  lr.type = RopeType::kLongRope;
  lr.original_max_position = 4096;
  lr.sequence_length = 10;
  lr.short_factor.assign(48, 1.0);
  lr.long_factor.assign(47, 1.0);
  EXPECT_NE(validate_rope(lr, 96)->find("long_factor"), std::string::npos);
  RopeScaling l3;
  l3.type = RopeType::kLlama3;
  l3.original_max_position = 8192;
  l3.low_freq_factor = 4;
  l3.high_freq_factor = 1;
  EXPECT_NE(validate_rope(l3, 128)->find("low_freq_factor"), std::string::npos);
  TableSpec t2t;
  t2t.schedule = Schedule::kT2T;
  t2t.rope = yarn(4, 32768);
  EXPECT_TRUE(validate(t2t));
}

TEST(Rope, NewLayoutsPlaceEveryPairsSinAndCos) {
  TableSpec s;
  s.d_model = 8;
  s.layout = Layout::kRopeCosPairs;
  EXPECT_EQ(table_width(s), 8);
  EXPECT_EQ(column_at(s, 5).pair, 2);
  EXPECT_FALSE(column_at(s, 5).is_sin);
  s.layout = Layout::kRopeCosSin;
  EXPECT_FALSE(column_at(s, 3).is_sin);
  EXPECT_TRUE(column_at(s, 4).is_sin);
  EXPECT_EQ(column_at(s, 4).pair, 0);
  s.layout = Layout::kPolar;
  EXPECT_FALSE(column_at(s, 2).is_sin);
  EXPECT_TRUE(column_at(s, 3).is_sin);
  EXPECT_EQ(column_at(s, 3).pair, 1);
  for (Layout l : all_layouts()) EXPECT_EQ(parse_layout(name_of(l)), l);
}

}  // namespace
}  // namespace pev
