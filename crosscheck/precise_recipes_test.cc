// The precise strategy on rotary recipes against the MPFR oracle: its __float128 recipe
// frequencies within their bound, and faithful (< 1 ulp of the exact A sin, A cos) on the caches
// of real models, every recipe, every output type, through each of its row paths (the interleaved
// and the split float32 sinks, the general rows of the narrow outputs and the strided layouts),
// where the fix-up recomputes scaled values, and on sampled blocks up to 2^24.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "peverify/core/precise/frequencies.h"
#include "peverify/crosscheck/precise_testutil.h"
#include "peverify/encoding/rope_models_testutil.h"
#include "peverify/oracle/frequencies.h"

namespace pev::core::precise {
namespace {

constexpr uint64_t kFaithfulLimit = uint64_t{1} << 24;
constexpr Dtype kOutputs[] = {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16};

// The real models' recipes, and yarn's variants real configs use: no truncation (a fractional
// ramp), mscale without mscale_all_dim, an explicit attention factor, betas of their own.
std::vector<TableSpec> recipe_specs() {
  std::vector<TableSpec> specs;
  for (const models::RopeModel& m : models::every_rope_model())
    specs.push_back(spec_of(m.model, Layout::kInterleaved, 0, 1 << 20));
  TableSpec yarn = specs[1];  // Qwen2.5
  yarn.rope.truncate = false;
  specs.push_back(yarn);
  yarn.rope.mscale = 0.707;
  yarn.rope.beta_fast = 16;
  yarn.rope.beta_slow = 2;
  specs.push_back(yarn);
  yarn.rope.attention_factor = 0.8;
  specs.push_back(yarn);
  return specs;
}

TEST(PreciseRecipeFrequencies, DoubleDoubleIsWithinItsBoundOfTheOracle) {
  for (const TableSpec& spec : recipe_specs()) {
    const double worst = worst_frequency_error(spec);
    EXPECT_LE(worst, frequency_error_bound(spec)) << describe(spec.rope);
    EXPECT_LE(worst, 0x1p-100) << describe(spec.rope);  // far below what faithfulness needs
  }
}

TEST(PreciseRecipes, AreFaithfulOnRealModelCachesThroughEveryRowPath) {
  for (const TableSpec& recipe : recipe_specs()) {
    for (const Dtype output : kOutputs) {
      for (const Layout layout :
           {Layout::kInterleaved, Layout::kRopeCosSin, Layout::kRopeCosDup, Layout::kPolar}) {
        TableSpec spec = recipe;
        spec.layout = layout;
        expect_faithful(output, spec, output == Dtype::kFloat32 ? 256 : 64);
      }
    }
  }
}

// Pair 0 has w = 1 in Qwen2.5's yarn (ramp 0) and the LongRoPE model (factor 1): at the
// convergents of pi, sin comes nearest zero and the fix-up recomputes it, scaled by A.
TEST(PreciseRecipes, AreFaithfulWhereTheFixupRecomputesScaledValues) {
  constexpr uint64_t kHard[] = {355, 103993, 104348, 833719, 1146408, 4272943, 5419351};
  const std::vector<TableSpec> specs = recipe_specs();
  for (const TableSpec* recipe : {&specs[1], &specs[5]}) {
    for (const uint64_t pos : kHard) {
      for (const Dtype output : kOutputs) {
        TableSpec spec = *recipe;
        spec.start = pos - 2;
        expect_faithful(output, spec, 5);
      }
    }
  }
}

TEST(PreciseRecipes, AreFaithfulOnSampledBlocksUpTo2To24) {
  for (const TableSpec& recipe : recipe_specs()) {
    WorstElement worst;
    for (const uint64_t start : sample_starts(kFaithfulLimit, 1, 8)) {
      TableSpec spec = recipe;
      spec.start = start;
      const WorstElement w = worst_against_oracle(precise_entry(Dtype::kFloat32), spec, 8);
      EXPECT_LT(w.ulp, 1.0) << describe(precise_entry(Dtype::kFloat32), spec, w);
      worst.merge(w);
    }
    RecordProperty("max_ulp_" + std::string(name_of(recipe.rope.type)), std::to_string(worst.ulp));
  }
}

}  // namespace
}  // namespace pev::core::precise
