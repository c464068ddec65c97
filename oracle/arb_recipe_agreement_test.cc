// The oracle's rotary recipes against the Arb referee (docs/mathematics.md §6, §12.1), which
// computes them from Hugging Face's formulas in balls and shares no code with the MPFR path: the
// worked figures, the branch decisions at their very edges, a sample of random recipes bit for bit
// in every format (both engines; more under `exhaustive`), and the tables `peverify oracle` writes
// for the models in models/ and for --rope-scaling recipes, at positions up to 2^40.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>

#include "peverify/encoding/format.h"
#include "peverify/encoding/model_config.h"
#include "peverify/oracle/arb_agreement_testutil.h"
#include "peverify/oracle/arb_recipe.h"
#include "peverify/oracle/arb_reference.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/recipe_testutil.h"
#include "peverify/oracle/rope_frequencies.h"
#include "peverify/oracle/table.h"

namespace pev::oracle {
namespace {

constexpr Dtype kFormats[] = {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16};

TEST(ArbRecipes, WorkedFigures) {
  const ArbRecipeFacts qwen = arb_recipe_facts(recipes::qwen25_yarn());
  EXPECT_EQ(qwen.yarn_low, 23);
  EXPECT_EQ(qwen.yarn_high, 40);
  EXPECT_NEAR(qwen.attention, 1.138629, 5e-7);
  const ArbRecipeFacts deepseek = arb_recipe_facts(recipes::deepseek_v3(1, 1));
  EXPECT_EQ(deepseek.yarn_low, 10);
  EXPECT_EQ(deepseek.yarn_high, 23);
  EXPECT_EQ(deepseek.attention, 1.0);
  const ArbRecipeFacts llama = arb_recipe_facts(recipes::llama31());
  EXPECT_EQ(llama.kept, 29);
  EXPECT_EQ(llama.smoothed, 6);
  EXPECT_EQ(llama.divided, 29);
  EXPECT_NEAR(arb_recipe_facts(recipes::phi3_longrope(8192, 1)).attention, 1.190238, 5e-7);
}

// Recipes whose edges fall within ~1e-15 of a pair, where double arithmetic may choose either
// side: yarn's floor and ceil (cd(beta) = 23 and 40 up to beta's rounding), its clamps at 0 and
// d - 1 (not truncated), and llama3's two band edges on pairs 20 and 40.
std::vector<TableSpec> edge_recipes() {
  const double two_pi = 2 * std::numbers::pi;
  const auto beta_for = [&](const TableSpec& s, double cd) {  // cd(beta) = cd
    return s.rope.original_max_position / (two_pi * std::pow(s.base, 2 * cd / s.d_model));
  };
  std::vector<TableSpec> out;
  TableSpec floor_ceil = recipes::qwen25_yarn();
  floor_ceil.rope.beta_fast = beta_for(floor_ceil, 23);
  floor_ceil.rope.beta_slow = beta_for(floor_ceil, 40);
  out.push_back(floor_ceil);
  TableSpec clamps = recipes::qwen25_yarn();
  clamps.rope.truncate = false;
  clamps.rope.beta_fast = beta_for(clamps, 0);
  clamps.rope.beta_slow = beta_for(clamps, 127);
  out.push_back(clamps);
  TableSpec bands = recipes::llama31();
  const auto ratio = [&](int j) {  // L0 / wavelength_j
    return bands.rope.original_max_position * std::pow(bands.base, -2.0 * j / 128) / two_pi;
  };
  bands.rope.high_freq_factor = ratio(20);
  bands.rope.low_freq_factor = ratio(40);
  out.push_back(bands);
  const std::vector<TableSpec> first = out;
  for (TableSpec s : first) {  // the same edges scaled to other models' sizes
    s.d_model = 64;
    s.base = 1e4;
    if (s.rope.type == RopeType::kLlama3) continue;
    s.rope.beta_fast = beta_for(s, 10);
    s.rope.beta_slow = beta_for(s, 23);
    out.push_back(s);
  }
  return out;
}

TEST(ArbRecipes, MpfrDecidesEveryEdgeAsArbDoes) {
  // Three edges at their models' sizes, and the two YaRN ones again at d 64 (llama3's bands are
  // not rescaled).
  ASSERT_EQ(edge_recipes().size(), 5u);
  for (const TableSpec& spec : edge_recipes()) {
    SCOPED_TRACE(recipes::describe_recipe(spec));
    const ArbRecipeFacts arb = arb_recipe_facts(spec);
    const Frequencies f(spec);
    int kept = 0, smoothed = 0, divided = 0;
    if (spec.rope.type == RopeType::kLlama3) {
      for (Llama3Band b : f.recipe()->llama3_bands())
        ++(b == Llama3Band::kHigh ? kept : b == Llama3Band::kLow ? divided : smoothed);
    } else {
      const YarnRamp& y = *f.recipe()->yarn();
      for (Ramp r : y.ramp) ++(r == Ramp::kZero ? kept : r == Ramp::kOne ? divided : smoothed);
      MpfrVar v(256);
      ramp_end_value(spec, y.low, 256, v);
      EXPECT_NEAR(mpfr_get_d(v, MPFR_RNDN), arb.yarn_low, 1e-12);
      ramp_end_value(spec, y.high, 256, v);
      EXPECT_NEAR(mpfr_get_d(v, MPFR_RNDN), arb.yarn_high, 1e-12);
    }
    EXPECT_EQ(kept, arb.kept);
    EXPECT_EQ(smoothed, arb.smoothed);
    EXPECT_EQ(divided, arb.divided);
  }
}

// The pairs next to each edge, in every format and position region, from both engines.
TEST(ArbRecipes, ValuesAtTheEdgesAgree) {
  TestRng rng(99);
  std::vector<agreement::AgreementCase> cases;
  for (const TableSpec& spec : edge_recipes())
    for (const int pair : {0, 9, 10, 11, 19, 20, 21, 22, 23, 24, 31, 39, 40, 41, 63})
      if (pair < spec.d_model / 2)
        for (int region = 0; region < recipes::kPositionRegions; ++region)
          cases.push_back({spec, recipes::position_in(rng, region), pair});
  for (const EngineKind kind : {EngineKind::kMpfr, EngineKind::kFast})
    for (const Dtype dtype : kFormats) {
      const agreement::AgreementSummary s = agreement::run_agreement(cases, dtype, kind);
      std::string shown;
      for (const std::string& line : s.failures) shown += "\n  " + line;
      EXPECT_EQ(s.failure_count, 0u) << name_of(kind) << " " << name_of(dtype) << shown;
    }
}

class RecipesVsArb : public testing::TestWithParam<Dtype> {};

TEST_P(RecipesVsArb, SampleBitIdentical) {
  const auto cases = agreement::sample_recipe_cases(20260611, 750, 15);
  for (const EngineKind kind : {EngineKind::kMpfr, EngineKind::kFast}) {
    const agreement::AgreementSummary s = agreement::run_agreement(cases, GetParam(), kind);
    std::string shown;
    for (const std::string& line : s.failures) shown += "\n  " + line;
    EXPECT_EQ(s.failure_count, 0u)
        << name_of(kind) << ": " << s.failure_count << " of " << cases.size() << shown;
    EXPECT_EQ(s.elements, 2u * cases.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, RecipesVsArb, testing::ValuesIn(kFormats),
                         [](const auto& info) { return std::string(name_of(info.param)); });

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every element of a table as `peverify oracle` computes it (compute_table with the fast engine,
// the command's default), against Arb.
void expect_table_agrees(const TableSpec& spec, uint64_t rows, Dtype dtype) {
  const auto engine = make_fast_engine(spec, dtype);
  const ExactTable t = compute_table(*engine, spec, rows, 1);
  int failures = 0;
  for (uint64_t r = 0; r < rows; ++r)
    for (int c = 0; c < t.width; ++c) {
      const Column col = column_at(spec, c);
      const ArbReference a = arb_reference(spec, spec.start + r, col.pair, dtype);
      const size_t i = r * static_cast<size_t>(t.width) + static_cast<size_t>(c);
      const uint64_t want = col.is_sin ? a.sin_bits : a.cos_bits;
      const double want_f64 = col.is_sin ? a.sin_f64 : a.cos_f64;
      if (encode_exact(t.rounded[i], dtype) == want && t.exact[i] == want_f64) continue;
      if (++failures <= 5)
        ADD_FAILURE() << fmt::format(
            "{} {} pos {} column {}: oracle {:a} / {:a}, arb 0x{:x} / {:a}",
            recipes::describe_recipe(spec), name_of(dtype), spec.start + r, c, t.rounded[i],
            t.exact[i], want, want_f64);
    }
}

TEST(ArbRecipes, ModelConfigTablesAgree) {
  for (const char* model : {"qwen2.5-7b-yarn", "llama-3.1-8b", "deepseek-v3", "gpt-neox-20b"}) {
    const std::string text = read_file(std::string("models/") + model + ".json");
    ASSERT_FALSE(text.empty()) << model << " (tests run from the repository root)";
    const ModelRope m = model_rope_from_config(text);
    for (const uint64_t start :
         {uint64_t{131000}, (uint64_t{1} << 20) + 3, uint64_t{1} << 33, (uint64_t{1} << 40) - 4})
      for (const Dtype dtype : {Dtype::kBFloat16, Dtype::kFloat32})
        expect_table_agrees(spec_of(m, Layout::kRopeCosDup, start, 2), 2, dtype);
  }
}

TEST(ArbRecipes, RopeScalingTablesAgree) {
  std::string short_factor, long_factor;
  for (int j = 0; j < 48; ++j) {
    short_factor += fmt::format("{}{}", j ? ", " : "", 1.0 + j / 400.0);
    long_factor += fmt::format("{}{}", j ? ", " : "", 1.0 + j * j / 50.0);
  }
  const struct {
    const char* json;
    int d;
    uint64_t max_position;
  } recipes_json[] = {
      {R"({"rope_type": "linear", "factor": 4.0})", 128, 4096},
      {R"({"rope_type": "dynamic", "factor": 2.0, "max_position_embeddings": 4096})", 128, 4096},
      {R"({"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096,
           "truncate": false, "beta_fast": 24})",
       64, 65536},
  };
  for (const auto& r : recipes_json)
    for (const uint64_t start : {uint64_t{100}, (uint64_t{1} << 20) + 3, (uint64_t{1} << 40) - 4}) {
      TableSpec spec;
      spec.d_model = r.d;
      spec.layout = Layout::kRopeCosSin;
      spec.start = start;
      spec.rope = rope_scaling_from_json(r.json, r.max_position);
      set_sequence_length(spec, 2);
      expect_table_agrees(spec, 2, Dtype::kFloat16);
    }
  const std::string longrope = fmt::format(
      R"({{"rope_type": "longrope", "original_max_position_embeddings": 4096,
           "short_factor": [{}], "long_factor": [{}]}})",
      short_factor, long_factor);
  for (const uint64_t start : {uint64_t{10}, uint64_t{4095}, (uint64_t{1} << 20) + 3}) {
    TableSpec spec;
    spec.d_model = 96;
    spec.layout = Layout::kRopeCosDup;
    spec.start = start;
    spec.rope = rope_scaling_from_json(longrope, 131072);
    set_sequence_length(spec, 2);  // 4097 rows and beyond take the long factors
    expect_table_agrees(spec, 2, Dtype::kBFloat16);
  }
}

}  // namespace
}  // namespace pev::oracle
