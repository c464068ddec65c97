// peverify verify on rotary caches built the way Hugging Face's float32 code builds them
// (reports/framework_cache_testutil.h): every recipe's honest cache passes in float32, float16 and
// bfloat16, near position 0 and near 131072, in the layouts frameworks store; each bug users have
// hit fails, and the verdict names the failing property and an element.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/verify/framework_cache_testutil.h"
#include "peverify/verify/verify.h"

namespace pev::verify {
namespace {

using testutil::Bug;
using testutil::named_failure;

struct Recipe {
  std::string name;
  TableSpec spec;  // d, base, recipe (the sequence length is set per table)
};

TableSpec from_preset(const char* name) {
  const ModelRope m = *model_preset(name);
  TableSpec s;
  s.d_model = m.rotary_dim;
  s.base = m.base;
  s.rope = m.rope;
  return s;
}

// Phi-3-like LongRoPE lists (d 96): short factors near 1, long ones growing to ~40.
RopeScaling longrope() {
  RopeScaling r;
  r.type = RopeType::kLongRope;
  r.original_max_position = 4096;
  r.max_position = 131072;
  for (int j = 0; j < 48; ++j) {
    r.short_factor.push_back(1.0 + 0.05 * j / 47.0);
    r.long_factor.push_back(1.0 + 39.0 * j * j / (47.0 * 47.0));
  }
  return r;
}

std::vector<Recipe> recipes() {
  std::vector<Recipe> r = {{"llama3 (Llama 3.1)", from_preset("llama-3.1-8b")},
                           {"yarn (Qwen2.5)", from_preset("qwen2.5-7b-yarn")},
                           {"yarn (DeepSeek-V3)", from_preset("deepseek-v3")}};
  TableSpec linear = grid_spec(128, 1e4);
  linear.rope.type = RopeType::kLinear;
  linear.rope.factor = 4;
  r.push_back({"linear", linear});
  TableSpec dynamic = grid_spec(128, 1e4);
  dynamic.rope.type = RopeType::kDynamic;
  dynamic.rope.factor = 4;
  dynamic.rope.max_position = 4096;
  r.push_back({"dynamic", dynamic});
  TableSpec lr = grid_spec(96, 1e4);
  lr.rope = longrope();
  r.push_back({"longrope (Phi-3-like)", lr});
  return r;
}

constexpr uint64_t kRows = 64;
constexpr uint64_t kFar = 131072 - kRows;  // the last rows of a 128k-token cache

TableSpec table_spec(const Recipe& recipe, uint64_t start, Layout layout) {
  TableSpec s = recipe.spec;
  s.start = start;
  s.layout = layout;
  set_sequence_length(s, kRows);
  return s;
}

VerifyResult verify_cache(const TableSpec& built, const TableSpec& declared, Dtype output,
                          Bug bug) {
  TableInput in{"cache", "framework cache",
                output,  kRows,
                {},      testutil::framework_cache(built, kRows, output, bug)};
  VerifyOptions o;
  o.spec = declared;
  o.claim = Claim::model(Dtype::kFloat32);
  return verify_table(std::move(in), o);
}

TEST(RotaryVerify, HonestFrameworkCachesPassForEveryRecipeDtypeAndPlace) {
  const Layout layouts[] = {Layout::kRopeCosDup, Layout::kRopeSinDup, Layout::kRopeCosSin,
                            Layout::kRopeCosPairs, Layout::kPolar};
  int tried = 0;
  for (const Recipe& recipe : recipes())
    for (const Dtype output : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16})
      for (const uint64_t start : {uint64_t{0}, kFar}) {
        const Layout layout = layouts[tried % std::size(layouts)];
        const TableSpec spec = table_spec(recipe, start, layout);
        const VerifyResult r = verify_cache(spec, spec, output, Bug::kNone);
        EXPECT_TRUE(r.holds()) << recipe.name << ", " << name_of(output) << ", start " << start
                               << ", " << name_of(layout) << "\n"
                               << to_text(r);
        ++tried;
      }
  EXPECT_EQ(tried, 36);
}

struct BugCase {
  const char* recipe;  // the name in recipes()
  Bug bug;
};

TEST(RotaryVerify, EachFrameworkBugFailsAndNamesAnElement) {
  const BugCase cases[] = {
      {"llama3 (Llama 3.1)", Bug::kUnscaledLlama3},
      {"yarn (Qwen2.5)", Bug::kAttentionIgnored},
      {"yarn (Qwen2.5)", Bug::kYarnRangeFromExtended},
      {"yarn (DeepSeek-V3)", Bug::kYarnRangeFromExtended},
      {"linear", Bug::kLinearTwice},
      {"dynamic", Bug::kDynamicNotRescaled},
      {"longrope (Phi-3-like)", Bug::kShortFactorsPastL0},
      {"llama3 (Llama 3.1)", Bug::kBFloat16InvFreq},
  };
  for (const BugCase& c : cases) {
    int found = 0;
    for (const Recipe& recipe : recipes()) {
      if (recipe.name != c.recipe) continue;
      ++found;
      for (const Dtype output : {Dtype::kFloat32, Dtype::kBFloat16}) {
        const TableSpec spec = table_spec(recipe, kFar, Layout::kRopeCosDup);
        const VerifyResult r = verify_cache(spec, spec, output, c.bug);
        EXPECT_FALSE(r.holds()) << testutil::name_of(c.bug) << " in " << recipe.name << ", "
                                << name_of(output) << " passed\n"
                                << to_text(r);
        EXPECT_NE(named_failure(r), "") << testutil::name_of(c.bug) << "\n" << to_text(r);
      }
    }
    EXPECT_EQ(found, 1) << "recipes() named \"" << c.recipe << "\" for "
                        << testutil::name_of(c.bug);
  }
}

// vLLM's cos_sin_cache ([cos | sin]) declared as a NeoX cache (cos duplicated): the second half
// holds sin where cos is expected.
TEST(RotaryVerify, ACosSinCacheDeclaredAsANeoXCacheFails) {
  for (const Recipe& recipe : recipes()) {
    const TableSpec built = table_spec(recipe, kFar, Layout::kRopeCosSin);
    TableSpec declared = built;
    declared.layout = Layout::kRopeCosDup;
    const VerifyResult r = verify_cache(built, declared, Dtype::kFloat32, Bug::kNone);
    EXPECT_FALSE(r.holds()) << recipe.name << "\n" << to_text(r);
    const std::string failure = named_failure(r);
    EXPECT_NE(failure, "") << recipe.name;
    // The first half (cos) is right; the failing elements are in the second.
    for (const properties::PropertyVerdict& v : r.verdicts)
      if (v.property == "oracle" && !v.holds) {
        for (const measure::Finding& f : v.worst) EXPECT_GE(f.column, built.d_model / 2);
      }
  }
}

}  // namespace
}  // namespace pev::verify
