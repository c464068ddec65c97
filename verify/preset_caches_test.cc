// Every model preset's rotary cache at its longest context (max_position_embeddings L), built
// the way Hugging Face's float32 code builds it (reports/framework_cache_testutil.h) and judged
// element by element against the exact oracle under the float32 model claim: the honest cache
// passes, and the bug users hit with that preset's recipe fails with an element named.
//
// Rows are SAMPLED, not the whole cache: three bands of kBand rows, at positions 0 .. kBand - 1,
// around L / 2, and L - kBand .. L - 1. They are one table whose position ids say where each row
// is (verify --positions), so the recipe sees the sequence length L the whole cache was built
// for (LongRoPE's long factors, from row 0 on), and verify judges each row at its own position.
//
// Past pos w_j = 2^19 the float32 model budget passes any value in range (docs/mathematics.md §3.4;
// verify's notes count those elements): in Llama 4 Scout's middle and last bands that is every
// high-frequency pair, so there the oracle holds the cache to its lower frequencies only.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/encoding/request.h"
#include "peverify/verify/framework_cache_testutil.h"
#include "peverify/verify/verify.h"

namespace pev::verify {
namespace {

using testutil::Bug;
using testutil::named_failure;

// Rows per band: three bands of 512, four output and layout pairs, 24 tests: about a second.
constexpr uint64_t kBand = 512;

struct Preset {
  const char* name;
  const char* layer_type;  // "" where the layers share one recipe
};

const Preset kPresets[] = {
    {"gpt-oss-20b", ""},
    {"llama-4-scout", ""},
    {"gemma-3-27b-it", "full_attention"},
    {"gemma-3-27b-it", "sliding_attention"},
    {"gemma-4-26b-a4b-it", "full_attention"},  // proportional: 64 of 256 pairs rotate
    {"gemma-4-26b-a4b-it", "sliding_attention"},
    {"qwen3-8b", ""},
    {"qwen2.5-vl-7b-instruct", ""},  // text positions: the three M-RoPE streams agree
    {"phi-4-mini-instruct", ""},
    {"deepseek-v3", ""},
    {"llama-3.1-8b", ""},
    {"qwen2.5-7b-yarn", ""},  // max_position_embeddings is L0 (32768), as published
    {"gpt-neox-20b", ""},
};

ModelRope model_of(const Preset& p) {
  const std::optional<ModelRope> m = model_preset(p.name, p.layer_type);
  if (!m) throw std::invalid_argument(std::string("no preset ") + p.name);
  return *m;
}

std::string label_of(const Preset& p) {
  return *p.layer_type ? std::string(p.name) + " " + p.layer_type : std::string(p.name);
}

// What ctest's test names show of the parameter (gtest's default is its bytes).
void PrintTo(const Preset& p, std::ostream* os) { *os << label_of(p); }

// The first position of each sampled band: the start, the middle and the end of the context.
std::vector<uint64_t> band_starts(uint64_t context) {
  return {0, context / 2 - kBand / 2, context - kBand};
}

// What a trace says of the rows: "rows sampled: 0..511, 65280..65791, 130560..131071 of 131072".
std::string sampled_rows(uint64_t context) {
  std::string s = "rows sampled:";
  for (const uint64_t b : band_starts(context))
    s += " " + std::to_string(b) + ".." + std::to_string(b + kBand - 1) + ",";
  s.back() = ' ';
  return s + "of " + std::to_string(context);
}

// How a cache is built wrong: a bug of the testutil's, and/or a base other than the config's.
struct Build {
  Bug bug = Bug::kNone;
  double base = 0;   // 0: the config's
  int head_dim = 0;  // what Bug::kRotaryDimAsHeadDim takes as the rotary dimension
};

// The sampled rows of the preset's cache, built as `build` says, verified against the config.
VerifyResult verify_sampled(const Preset& preset, Layout layout, Dtype output,
                            const Build& build = {}) {
  const ModelRope model = model_of(preset);
  const uint64_t context = model.max_position;
  std::vector<double> values;
  RowPositions positions;
  positions.streams.resize(1);
  for (const uint64_t start : band_starts(context)) {
    TableSpec built = spec_of(model, layout, start, kBand);
    // Hugging Face builds the cache for the batch's largest position id + 1: the whole context.
    built.rope.sequence_length = context;
    if (build.base != 0) built.base = build.base;
    const std::vector<double> band =
        testutil::framework_cache(built, kBand, output, build.bug, build.head_dim);
    values.insert(values.end(), band.begin(), band.end());
    for (uint64_t r = 0; r < kBand; ++r) positions.streams[0].push_back(start + r);
  }
  const uint64_t rows = positions.rows();
  TableInput in{"cache", "Hugging Face style cache", output, rows, {}, std::move(values)};
  VerifyOptions o;
  o.spec = spec_of(model, layout, 0, rows);
  set_sequence_length(o.spec, positions);  // the largest id + 1: L, as the cache was built
  o.positions = std::move(positions);
  o.positions_name = "sampled bands";
  o.claim = Claim::model(Dtype::kFloat32);
  // Declared from the config, as --model-config declares it: its source, its head's width and
  // its other layer types, which the diagnosis tries.
  o.source = label_of(preset);
  o.head_dim = model.head_dim;
  RotaryRequest q;
  q.model = model;
  q.other_layer_types = other_layer_types(
      model, [&](const std::string& name) { return *model_preset(preset.name, name); });
  o.other_layer_types = layer_type_specs(q, o.spec);
  return verify_table(std::move(in), o);
}

struct Output {
  Dtype dtype;
  Layout layout;  // Hugging Face's two caches
};
const Output kOutputs[] = {{Dtype::kFloat32, Layout::kRopeCosDup},
                           {Dtype::kFloat32, Layout::kRopeSinDup},
                           {Dtype::kBFloat16, Layout::kRopeCosDup},
                           {Dtype::kBFloat16, Layout::kRopeSinDup}};

class PresetCache : public ::testing::TestWithParam<Preset> {};

TEST_P(PresetCache, HonestCachePassesEveryElementInSampledBandsOfItsLongestContext) {
  const ModelRope model = model_of(GetParam());
  ASSERT_GE(model.max_position, 3 * kBand) << "the bands would overlap";
  for (const Output& out : kOutputs) {
    SCOPED_TRACE(label_of(GetParam()) + ", " + std::string(name_of(out.dtype)) + ", " +
                 std::string(name_of(out.layout)) + ", " + sampled_rows(model.max_position));
    const VerifyResult r = verify_sampled(GetParam(), out.layout, out.dtype);
    EXPECT_TRUE(r.holds()) << to_text(r);
    // Every element of the bands was judged against its exact value.
    const properties::PropertyVerdict* oracle = nullptr;
    for (const properties::PropertyVerdict& v : r.verdicts)
      if (v.property == "oracle") oracle = &v;
    ASSERT_NE(oracle, nullptr) << to_text(r);
    EXPECT_EQ(oracle->checked, 3 * kBand * table_width(r.spec)) << to_text(r);
  }
}

std::string test_name(const ::testing::TestParamInfo<Preset>& info) {
  std::string s = label_of(info.param);
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Presets, PresetCache, ::testing::ValuesIn(kPresets), test_name);

struct BugCase {
  Preset preset;
  const char* id;    // the bug in the test's name
  const char* what;  // the bug, for the trace
  Build build;
  const char* cause;  // what the diagnosis names (docs/architecture.md §8.1)
};

void PrintTo(const BugCase& c, std::ostream* os) { *os << label_of(c.preset) << ", " << c.id; }

class PresetBug : public ::testing::TestWithParam<BugCase> {};

TEST_P(PresetBug, FailsAndNamesAnElementInSampledBandsOfItsLongestContext) {
  const BugCase& c = GetParam();
  const ModelRope model = model_of(c.preset);
  for (const Output& out : kOutputs) {
    SCOPED_TRACE(label_of(c.preset) + " built with " + c.what + ", " +
                 std::string(name_of(out.dtype)) + ", " + sampled_rows(model.max_position));
    const VerifyResult r = verify_sampled(c.preset, out.layout, out.dtype, c.build);
    EXPECT_FALSE(r.holds()) << to_text(r);
    EXPECT_NE(named_failure(r), "") << to_text(r);
    // The oracle itself names an element, at a position of one of the bands.
    bool named = false;
    for (const properties::PropertyVerdict& v : r.verdicts)
      if (v.property == "oracle" && !v.holds && !v.worst.empty()) {
        named = true;
        const uint64_t pos = v.worst.front().pos;
        bool in_band = false;
        for (const uint64_t b : band_starts(model.max_position))
          in_band = in_band || (pos >= b && pos < b + kBand);
        EXPECT_TRUE(in_band) << "position " << pos;
        EXPECT_LT(v.worst.front().column, r.spec.d_model);
      }
    EXPECT_TRUE(named) << "the oracle named no element\n" << to_text(r);
    ASSERT_TRUE(r.diagnosis);
    EXPECT_EQ(r.diagnosis->cause, c.cause) << r.diagnosis->detail;
  }
}

const BugCase kBugs[] = {
    {{"llama-4-scout", ""},
     "Llama3Unscaled",
     "llama3 scaling ignored",
     {Bug::kUnscaledLlama3},
     "recipe"},
    {{"gpt-oss-20b", ""},
     "AttentionIgnored",
     "yarn's attention factor ignored",
     {Bug::kAttentionIgnored},
     "amplitude"},
    {{"phi-4-mini-instruct", ""},
     "ShortFactorsPastL0",
     "the short factors past original_max_position_embeddings",
     {Bug::kShortFactorsPastL0},
     "recipe-parameters"},
    // A table of the head's width is refused by its width alone; the subtler bug keeps d = 96
    // and takes the exponents over the head's 128.
    {{"phi-4-mini-instruct", ""},
     "ExponentsOverHeadDim",
     "frequencies b^(-2j/head_dim) over the first 48 pairs",
     {Bug::kRotaryDimAsHeadDim, 0, 128},
     "rotary-dim"},
    {{"gemma-3-27b-it", "full_attention"},
     "LocalBase",
     "the local base 10000",
     {Bug::kNone, 1e4},
     "base"},
    {{"gemma-3-27b-it", "sliding_attention"},
     "GlobalBase",
     "rope_theta 1e6",
     {Bug::kNone, 1e6},
     "base"},
    {{"gemma-4-26b-a4b-it", "full_attention"},
     "ExponentOverRotatedPairs",
     "proportional's exponent over the 128 rotated dims, not head_dim 512 (pegainfer#820)",
     {Bug::kProportionalOverRotated},
     "rotary-dim"},
    {{"gemma-4-26b-a4b-it", "sliding_attention"},
     "GlobalBase",
     "rope_theta 1e6",
     {Bug::kNone, 1e6},
     "base"},
    {{"qwen3-8b", ""}, "Base10000", "the generic base 10000", {Bug::kNone, 1e4}, "base"},
    {{"qwen2.5-vl-7b-instruct", ""},
     "Base10000",
     "the generic base 10000",
     {Bug::kNone, 1e4},
     "base"},
    {{"deepseek-v3", ""},
     "YarnRangeFromExtended",
     // s L0 = L here: older transformers' range from L is the same bug.
     "yarn's range from the extended length (Megatron-LM#1418)",
     {Bug::kYarnRangeFromExtended},
     "isolated"},
    {{"deepseek-v3", ""},
     "MscaleAllDimIgnored",
     "mscale_all_dim ignored (attention 1.369)",
     {Bug::kMscaleAllDimIgnored},
     "isolated"},
    {{"llama-3.1-8b", ""},
     "Llama3Unscaled",
     "llama3 scaling ignored",
     {Bug::kUnscaledLlama3},
     "recipe"},
    {{"qwen2.5-7b-yarn", ""},
     "AttentionIgnored",
     "yarn's attention factor ignored",
     {Bug::kAttentionIgnored},
     "amplitude"},
    {{"gpt-neox-20b", ""},
     "ExponentsOverHeadDim",
     "frequencies b^(-2j/head_dim) over the first 12 pairs",
     {Bug::kRotaryDimAsHeadDim, 0, 96},
     "rotary-dim"},
};

std::string bug_name(const ::testing::TestParamInfo<BugCase>& info) {
  return test_name({info.param.preset, info.index}) + "_" + info.param.id;
}

INSTANTIATE_TEST_SUITE_P(Presets, PresetBug, ::testing::ValuesIn(kBugs), bug_name);

}  // namespace
}  // namespace pev::verify
