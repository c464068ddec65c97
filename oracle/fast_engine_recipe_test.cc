// The fast engine against the MPFR engine on rotary recipes (docs/mathematics.md §12.1), bit for
// bit in every format: random recipes around real models at positions small, near 2^20, above 2^20
// and near 2^40 (more under `exhaustive`), the models' own tables, and the attention factors the
// kernel does not scale by (handed to MPFR whole).
#include <gtest/gtest.h>

#include <string>

#include "peverify/encoding/format.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/fast_engine_testutil.h"
#include "peverify/oracle/recipe_testutil.h"

namespace pev::oracle {
namespace {

using fastcheck::Mismatches;
using fastcheck::shown;

class FastVsMpfrRecipes : public testing::TestWithParam<Dtype> {};

TEST_P(FastVsMpfrRecipes, RandomRecipesBitIdentical) {
  const Dtype dtype = GetParam();
  uint64_t handed = 0;
  const Mismatches m =
      fastcheck::compare_recipes(515 + static_cast<int>(dtype), 70, 6, dtype, &handed);
  EXPECT_GT(m.elements, 50000u);
  EXPECT_EQ(m.count, 0u) << m.count << " of " << m.elements << shown(m);
  EXPECT_LE(handed * 1000, m.elements) << "hand-offs should be rare";
}

// The models' tables as `peverify oracle --model-config` writes them: Qwen2.5 from 131000, Llama
// 3.1 and DeepSeek-V3 (both mscale variants) around 2^20, Phi-3 with either factor list near 2^40.
TEST_P(FastVsMpfrRecipes, ModelTablesBitIdentical) {
  const Dtype dtype = GetParam();
  std::vector<TableSpec> specs = {
      recipes::qwen25_yarn(),          recipes::llama31(),
      recipes::deepseek_v3(1, 1),      recipes::deepseek_v3(0.707, 1),
      recipes::phi3_longrope(4000, 3), recipes::phi3_longrope(uint64_t{1} << 40, 3)};
  const uint64_t starts[] = {131000,      (uint64_t{1} << 20) - 8,  (uint64_t{1} << 20) + 5,
                             uint64_t{0}, (uint64_t{1} << 40) - 30, (uint64_t{1} << 40) - 30};
  for (size_t i = 0; i < specs.size(); ++i) {
    specs[i].start = starts[i];
    specs[i].layout = Layout::kRopeCosDup;
    const Mismatches m = fastcheck::compare_tables(specs[i], 24, dtype);
    EXPECT_EQ(m.count, 0u) << recipes::describe_recipe(specs[i]) << shown(m);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, FastVsMpfrRecipes,
                         testing::Values(Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16,
                                         Dtype::kFloat64),
                         [](const auto& info) { return std::string(name_of(info.param)); });

// Attention factors beyond [2^-64, 2^8] go to MPFR whole; 1e5 overflows float16 to infinities,
// and the exact factor 1 + 2^-8 rounds to even at position 0 in bfloat16.
TEST(FastVsMpfrRecipes, AttentionFactorsAtTheEdges) {
  for (const auto& [a, dtype] :
       {std::pair{1e5, Dtype::kFloat16}, std::pair{0x1p-70, Dtype::kFloat32},
        std::pair{1 + 0x1p-8, Dtype::kBFloat16}}) {
    TableSpec spec = recipes::qwen25_yarn();
    spec.rope.attention_factor = a;
    const auto fast = make_fast_engine(spec, dtype);
    const auto mpfr = make_mpfr_engine(spec, dtype);
    Mismatches m;
    fastcheck::compare_tile(*fast, *mpfr, spec, {0, 40, 0, 64}, dtype, m);
    EXPECT_EQ(m.count, 0u) << a << shown(m);
    TileValues v;
    fast->evaluate({0, 1, 0, 1}, v);
    const double want = a == 1e5 ? INFINITY : a == 1 + 0x1p-8 ? 1.0 : a;
    EXPECT_EQ(v.cos_rounded[0], want) << a;
    EXPECT_EQ(v.cos_exact[0], a);
    if (a != 1 + 0x1p-8) {  // every element of positions 1 .. 39 went to MPFR
      EXPECT_EQ(fast->stats().handed_off.load(), 39u * 64u) << a;
    }
  }
}

}  // namespace
}  // namespace pev::oracle
