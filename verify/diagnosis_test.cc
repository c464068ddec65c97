// A failing verdict names its cause: each bug planted in a table built the way frameworks build
// it (Hugging Face's float32 caches, the paper's table) is named with the declaration the data
// does match; honest tables get no diagnosis, and isolated corruptions never get a systematic
// cause.
#include "peverify/verify/diagnosis.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/oracle/table.h"
#include "peverify/verify/framework_cache_testutil.h"

namespace pev::verify {
namespace {

using testutil::Bug;

VerifyResult verify_values(std::vector<double> values, const TableSpec& declared,
                           Dtype dtype = Dtype::kFloat32) {
  const uint64_t rows = values.size() / static_cast<uint64_t>(table_width(declared));
  TableInput in{"t.npy", "test table", dtype, rows, {}, std::move(values)};
  VerifyOptions o;
  o.spec = declared;
  o.claim = Claim::model(Dtype::kFloat32);
  return verify_table(std::move(in), o);
}

// The paper's table of d and base, in `layout`, from position `start`.
TableSpec paper(int d, double base = 1e4, Layout layout = Layout::kInterleaved,
                uint64_t start = 0) {
  TableSpec s = grid_spec(d, base);
  s.layout = layout;
  s.start = start;
  return s;
}

// The correctly rounded float32 table of `built`.
std::vector<double> exact_table(const TableSpec& built, uint64_t rows) {
  return oracle::compute_table(*oracle::make_fast_engine(built, Dtype::kFloat32), built, rows)
      .rounded;
}

void expect_cause(const VerifyResult& r, const std::string& cause,
                  const std::vector<std::string>& matches) {
  ASSERT_FALSE(r.holds());
  ASSERT_TRUE(r.diagnosis.has_value());
  EXPECT_EQ(r.diagnosis->cause, cause) << r.diagnosis->detail;
  EXPECT_EQ(r.diagnosis->matches, matches) << r.diagnosis->detail;
  EXPECT_GE(r.diagnosis->explains, 0.99) << r.diagnosis->detail;
  EXPECT_NE(to_text(*r.diagnosis).find("diagnosis: " + cause + ": "), std::string::npos);
}

TEST(Diagnosis, TheLayoutTheRowsAreIn) {
  expect_cause(verify_values(exact_table(paper(64, 1e4, Layout::kHalves), 4096), paper(64)),
               "layout", {"--layout halves"});
}

TEST(Diagnosis, PositionsOffByOne) {
  // The rows hold positions 1.. (a cache indexed from 1), declared from 0.
  expect_cause(verify_values(exact_table(paper(64, 1e4, Layout::kInterleaved, 1), 4096), paper(64)),
               "positions", {"--start 1"});
}

// A cache 1000 positions on (a prefix's rows): beyond the +-8 tried always, the offset the
// rows' own angles give is tried, and judged like the rest; in a cos-only layout too.
TEST(Diagnosis, PositionsFarOffAreFoundFromTheRowsOwnAngles) {
  for (const Layout layout : {Layout::kInterleaved, Layout::kRopeCosDup}) {
    const TableSpec declared = paper(64, 1e4, layout);
    TableSpec built = declared;
    built.start = 1000;
    expect_cause(verify_values(exact_table(built, 4096), declared), "positions", {"--start 1000"});
  }
}

TEST(Diagnosis, AnotherBase) {
  expect_cause(verify_values(exact_table(paper(128, 5e5), 4096), paper(128)), "base",
               {"--base 500000"});
}

TEST(Diagnosis, SinNegated) {
  std::vector<double> v = exact_table(paper(64), 4096);
  for (size_t i = 0; i < v.size(); i += 2) v[i] = -v[i];  // interleaved: sin in even columns
  const VerifyResult r = verify_values(std::move(v), paper(64));
  expect_cause(r, "sign", {});
}

TEST(Diagnosis, Llama3RecipeNotAppliedAsTransformers32330) {
  const ModelRope llama = *model_preset("llama-3.1-8b", "");
  const TableSpec declared = spec_of(llama, Layout::kRopeCosDup, 0, 8192);
  const VerifyResult r = verify_values(
      testutil::framework_cache(declared, 8192, Dtype::kFloat32, Bug::kUnscaledLlama3), declared);
  expect_cause(r, "recipe", {"--d-model 128", "--base 500000"});
  EXPECT_NE(r.diagnosis->detail.find("transformers#32330"), std::string::npos);
}

TEST(Diagnosis, FrequenciesRoundedToBFloat16) {
  const TableSpec declared = paper(128, 1e4, Layout::kRopeCosDup);
  const VerifyResult r = verify_values(
      testutil::framework_cache(declared, 8192, Dtype::kFloat32, Bug::kBFloat16InvFreq), declared);
  expect_cause(r, "frequency-dtype", {});
  EXPECT_NE(r.diagnosis->detail.find("bfloat16"), std::string::npos) << r.diagnosis->detail;
}

TEST(Diagnosis, AComputationInBFloat16ClaimedAsFloat32) {
  // Angles and frequencies in bfloat16, the values stored as float32: wrong everywhere by far more
  // than float32 allows; no declaration of float32 arithmetic matches it. The tightest narrower
  // claim it meets is named: float16's model (C = 32) already allows bfloat16's rounding of the
  // angle.
  const TableSpec declared = paper(64);
  const auto bf16 = [](double x) {
    const double ulp = ulp_of(x, Dtype::kBFloat16);
    return std::nearbyint(x / ulp) * ulp;
  };
  std::vector<double> v(4096 * 64);
  for (uint64_t pos = 0; pos < 4096; ++pos)
    for (int k = 0; k < 32; ++k) {
      const double angle = bf16(static_cast<double>(pos) * bf16(frequency(declared, k)));
      v[pos * 64 + 2 * k] = static_cast<float>(std::sin(angle));
      v[pos * 64 + 2 * k + 1] = static_cast<float>(std::cos(angle));
    }
  const VerifyResult r = verify_values(std::move(v), declared);
  expect_cause(r, "compute", {"--compute float16"});
  EXPECT_NE(r.diagnosis->detail.find("the tightest"), std::string::npos) << r.diagnosis->detail;
}

// GPT-NeoX-20B rotates 24 of its 96 dims; vllm#43676 took the exponent over the whole head.
// Declared from the config (which gives the head's width), the cause is named; an honest cache
// of the same config passes.
TEST(Diagnosis, APartialRotarysFrequenciesOverTheWholeHead) {
  const ModelRope neox = *model_preset("gpt-neox-20b", "");
  ASSERT_LT(neox.rotary_dim, neox.head_dim);
  const TableSpec declared = spec_of(neox, Layout::kRopeCosDup, 0, 8192);
  const auto judged = [&](Bug bug) {
    std::vector<double> v =
        testutil::framework_cache(declared, 8192, Dtype::kFloat32, bug, neox.head_dim);
    TableInput in{"cos.npy", "test table", Dtype::kFloat32, 8192, {}, std::move(v)};
    VerifyOptions o;
    o.spec = declared;
    o.source = "gpt-neox-20b";
    o.head_dim = neox.head_dim;
    o.claim = Claim::model(Dtype::kFloat32);
    return verify_table(std::move(in), o);
  };
  EXPECT_TRUE(judged(Bug::kNone).holds());
  const VerifyResult r = judged(Bug::kRotaryDimAsHeadDim);
  expect_cause(r, "rotary-dim", {});
  EXPECT_NE(r.diagnosis->detail.find("vllm#43676"), std::string::npos) << r.diagnosis->detail;
}

// Dynamic NTK takes its base from the sequence length: a cache built from position 1 has its
// sequence length one longer, and the declaration that matches it (--start 1) says so too.
TEST(Diagnosis, PositionsOffByOneMoveTheSequenceLengthARecipeTakes) {
  TableSpec declared = paper(64, 1e4, Layout::kRopeCosDup);
  declared.rope.type = RopeType::kDynamic;
  declared.rope.factor = 4;
  declared.rope.max_position = 2048;
  TableSpec built = declared;
  built.start = 1;
  set_sequence_length(built, 8192);
  set_sequence_length(declared, 8192);
  ASSERT_NE(built.rope.sequence_length, declared.rope.sequence_length);
  expect_cause(verify_values(exact_table(built, 8192), declared), "positions", {"--start 1"});
}

// A layer type of another rotary dimension reads the rows at another width: never tried (it
// read past the sampled rows at position ids).
TEST(Diagnosis, ALayerTypeOfAnotherWidthIsNotTried) {
  const TableSpec declared = paper(64, 1e4, Layout::kRopeCosDup);
  RowPositions ids;
  ids.streams.assign(1, {});
  for (uint64_t r = 0; r < 4096; ++r) ids.streams[0].push_back(4095 - r);
  TableSpec built = declared;
  built.base = 5e5;
  const std::vector<double> in_order = exact_table(built, 4096);
  std::vector<double> v(in_order.size());  // row r at position 4095 - r
  for (uint64_t r = 0; r < 4096; ++r)
    std::copy_n(in_order.begin() + (4095 - r) * 64, 64, v.begin() + r * 64);
  TableInput in{"t.npy", "test table", Dtype::kFloat32, 4096, {}, v};
  VerifyOptions o;
  o.spec = declared;
  o.positions = ids;
  o.positions_name = "ids.npy";
  o.source = "config.json";
  o.other_layer_types = {{"narrow", paper(16, 5e5, Layout::kRopeCosDup)}};
  o.claim = Claim::model(Dtype::kFloat32);
  const VerifyResult r = verify_table(std::move(in), o);
  ASSERT_TRUE(r.diagnosis);
  EXPECT_NE(r.diagnosis->cause, "layer-type") << r.diagnosis->detail;
  EXPECT_NE(r.diagnosis->cause, "none") << r.diagnosis->detail;
}

TEST(Diagnosis, HonestTablesHaveNone) {
  const TableSpec declared = paper(128, 1e4, Layout::kRopeCosDup);
  const VerifyResult r =
      verify_values(testutil::framework_cache(declared, 8192, Dtype::kFloat32), declared);
  EXPECT_TRUE(r.holds());
  EXPECT_FALSE(r.diagnosis.has_value());
}

TEST(Diagnosis, IsolatedCorruptionsAreSaidAsSuchWithTheirPlaces) {
  for (const auto& [row, column, delta] :
       std::vector<std::tuple<uint64_t, int, double>>{{1234, 7, 3e-3}, {4000, 60, -0.5}}) {
    std::vector<double> v = exact_table(paper(64), 4096);
    v[row * 64 + column] += delta;
    const VerifyResult r = verify_values(std::move(v), paper(64));
    ASSERT_TRUE(r.diagnosis.has_value());
    EXPECT_EQ(r.diagnosis->cause, "isolated") << r.diagnosis->detail;
    EXPECT_TRUE(r.diagnosis->matches.empty());
    EXPECT_NE(r.diagnosis->detail.find(fmt::format("pos {} dim {}", row, column)),
              std::string::npos)
        << r.diagnosis->detail;
    EXPECT_NE(r.diagnosis->detail.find("rows, sampled"), std::string::npos);
  }
}

TEST(Diagnosis, IsNotRunOnAPassNorWhenNotAsked) {
  TableInput in{"t.npy", "test table", Dtype::kFloat32,
                4096,    {},           exact_table(paper(64, 5e5), 4096)};
  VerifyOptions o;
  o.spec = paper(64);
  o.claim = Claim::model(Dtype::kFloat32);
  o.diagnose = false;
  const VerifyResult r = verify_table(std::move(in), o);
  EXPECT_FALSE(r.holds());
  EXPECT_FALSE(r.diagnosis.has_value());
  EXPECT_FALSE(to_json(r).contains("diagnosis"));
}

}  // namespace
}  // namespace pev::verify
