// The recommendation rule (reports/recommend.h) on hand-built study results: no study runs.
// Suites are named recommend_* so that `ctest -R recommend` selects them.
#include "peverify/reports/study/recommend.h"

#include <gtest/gtest.h>

#include <random>

#include "peverify/encoding/targets.h"
#include "peverify/reports/render/matrix.h"
#include "peverify/reports/render/render.h"
#include "peverify/reports/study/report_json.h"
#include "peverify/support/atomic_file.h"

namespace pev::reports::study {
namespace {

const std::vector<std::string> kTargets = {"1e-4", "1e-2", "faithful"};
const std::vector<std::string> kDtypes = {"float32", "float16", "bfloat16"};
const std::vector<uint64_t> kContexts = {4096, 32768, 131072, 1u << 20};
constexpr uint64_t kStudied = (uint64_t{1} << 24) - 1;

// An entry with a spread of +-`spread` around `median` values/s, meeting each target up to the
// given position (absent: never), on the plain grids and in every model's cache alike.
EntryResult entry(const std::string& name, const std::string& output, double median, double spread,
                  double max_abs, const std::map<std::string, uint64_t>& horizons) {
  EntryResult e;
  e.name = name;
  e.output = output;
  e.values_per_s = Spread{median, median * (1 - spread), median * (1 + spread)};
  e.roofline_ratio = 0.5;
  e.max_abs = max_abs;
  e.horizons = horizons;
  for (const char* model : {"llama-3.1-8b", "deepseek-v3"}) {
    ModelResult m;
    m.model = model;
    m.figures.elements = 1;
    m.figures.max_abs = max_abs;
    m.horizons = horizons;
    e.models.push_back(m);
  }
  for (const char* property : {"bounded", "unique", "shift", "growth", "claim"})
    e.verdicts.emplace_back().property = property;
  return e;
}

properties::PropertyVerdict& verdict(EntryResult& e, const std::string& property) {
  for (properties::PropertyVerdict& v : e.verdicts)
    if (v.property == property) return v;
  properties::PropertyVerdict& v = e.verdicts.emplace_back();
  v.property = property;
  return v;
}

// Fails `property` with its worst element at `pos` (no first_failure recorded), as bounded does.
void fail_from(EntryResult& e, const std::string& property, uint64_t pos) {
  properties::PropertyVerdict& v = verdict(e, property);
  v.holds = false;
  v.worst.emplace_back().pos = pos + 7;
  v.worst.emplace_back().pos = pos;
}

// A study like the default report's: precise entries faithful everywhere; fast float32
// strategies within 1e-2 to ~1.4e5, one of them (recurrence) breaking bounded from position 30;
// several entries within each other's spread.
std::vector<EntryResult> study_entries() {
  const std::map<std::string, uint64_t> all = {
      {"1e-4", kStudied}, {"1e-2", kStudied}, {"faithful", kStudied}};
  const std::map<std::string, uint64_t> f32_usual = {{"1e-4", 1039}, {"1e-2", 142938}};
  std::vector<EntryResult> v = {
      entry("cpu/precise/f64>f32/hwy", "float32", 5.5e9, 0.08, 6e-8, all),
      entry("cpu/precise/f64>f32/sleef", "float32", 5.2e9, 0.1, 6e-8, all),
      entry("cpu/pow/f32>f32/sleef-u10", "float32", 5.7e9, 0.06, 8e-3, f32_usual),
      entry("cpu/logspace/f32>f32/glibc", "float32", 1.2e9, 0.05, 9e-3, f32_usual),
      entry("cpu/recurrence/f32>f32/glibc", "float32", 9e9, 0.04, 2e-3, f32_usual),
      entry("cpu/precise/f64>f16/hwy", "float16", 9.1e9, 0.1, 2.4e-4,
            {{"1e-2", kStudied}, {"faithful", kStudied}}),
      entry("cpu/pow/f32>f16/sleef-u10", "float16", 9.5e9, 0.12, 2.5e-4,
            {{"1e-2", kStudied}, {"faithful", 200000}}),
      entry("cpu/precise/f64>bf16/hwy", "bfloat16", 9.6e9, 0.1, 2e-3,
            {{"1e-2", kStudied}, {"faithful", kStudied}}),
      entry("cpu/recurrence/bf16>bf16/glibc", "bfloat16", 2e10, 0.02, 8e-3, {{"1e-2", kStudied}}),
  };
  fail_from(v[4], "bounded", 30);
  fail_from(v[8], "bounded", 3);
  return v;
}

// Every recommendation the report makes, plain and per model.
std::vector<Recommendation> all_recommendations(const std::vector<EntryResult>& entries) {
  const std::vector<Candidate> c = candidates_of(entries);
  std::vector<Recommendation> out = recommend(c, kDtypes, kContexts, kTargets);
  for (const char* model : {"llama-3.1-8b", "deepseek-v3"})
    for (Recommendation& r :
         recommend_for_model(c, model, {"float32", "bfloat16"}, 131072, kTargets))
      out.push_back(std::move(r));
  return out;
}

std::vector<std::string> picks(const std::vector<Recommendation>& recs) {
  std::vector<std::string> out;
  for (const Recommendation& r : recs) out.push_back(r.entry);
  return out;
}

// The matrix's shape: each row's labels, "same as", and its cells' entries and spans. The cells'
// speed text is the measured median, which is meant to vary.
std::vector<std::string> matrix_shape(const std::vector<EntryResult>& entries) {
  StudyResult s;
  s.entries = entries;
  s.models = {{"llama-3.1-8b", 128, 5e5, "llama3", 1}, {"deepseek-v3", 64, 1e4, "yarn", 1}};
  s.recommendations = all_recommendations(entries);
  const nlohmann::json j = to_json(s);
  std::vector<std::string> out;
  for (const render::Matrix& m : {render::recommendation_matrix(j), render::model_matrix(j)})
    for (const render::MatrixRow& row : m.rows) {
      std::string line = row.labels[0] + "|" + row.labels[1] + "|" + row.same_as;
      for (const render::MatrixCell& c : row.cells)
        line += "|" + c.entry + "x" + std::to_string(c.span);
      out.push_back(line);
    }
  return out;
}

const std::string& pick_for(const std::vector<Recommendation>& recs, const std::string& model,
                            const std::string& dtype, uint64_t context, const std::string& target) {
  for (const Recommendation& r : recs)
    if (r.model == model && r.dtype == dtype && r.context == context && r.target == target)
      return r.entry;
  static const std::string none = "(not asked)";
  return none;
}

TEST(recommend_rule, SameRecommendationsAndMatrixWhenTimingsMoveWithinTheirSpread) {
  const std::vector<EntryResult> base = study_entries();
  const std::vector<std::string> expected = picks(all_recommendations(base));
  const std::vector<std::string> shape = matrix_shape(base);
  const uint32_t seed = std::random_device{}();
  std::mt19937 rng(seed);
  for (int round = 0; round < 200; ++round) {
    std::vector<EntryResult> moved = base;
    for (EntryResult& e : moved) {
      Spread& f = *e.values_per_s;
      // Anywhere in the spread, its ends included.
      const double u = round < 2 ? round : std::uniform_real_distribution<double>(0, 1)(rng);
      f.median = f.min + u * (f.max - f.min);
    }
    ASSERT_EQ(picks(all_recommendations(moved)), expected) << "seed " << seed << " round " << round;
    ASSERT_EQ(matrix_shape(moved), shape) << "seed " << seed << " round " << round;
  }
}

TEST(recommend_rule, TiesGoToTheMoreAccurateThenTheName) {
  std::vector<EntryResult> e = study_entries();
  const auto recs = all_recommendations(e);
  // pow-sleef is fastest by median (5.7e9) but within precise-hwy's spread: precise is more
  // accurate, and of the two precise entries (same error) hwy comes first by name.
  EXPECT_EQ(pick_for(recs, "", "float32", 131072, "1e-2"), "cpu/precise/f64>f32/hwy");
  EXPECT_EQ(pick_for(recs, "", "float16", 4096, "1e-2"), "cpu/precise/f64>f16/hwy");
  // Out of the spread, speed decides: pow beats precise once nothing overlaps.
  for (EntryResult& x : e)
    if (x.name.starts_with("cpu/precise/")) *x.values_per_s = {1e9, 0.9e9, 1.1e9};
  EXPECT_EQ(pick_for(all_recommendations(e), "", "float32", 131072, "1e-2"),
            "cpu/pow/f32>f32/sleef-u10");
}

TEST(recommend_rule, BoundedFromPositionThirtyRulesOutLongerContextsOnly) {
  const std::vector<EntryResult> e = study_entries();
  const std::vector<Candidate> c = candidates_of(e);
  const std::string recurrence = "cpu/recurrence/f32>f32/glibc";
  // The case: recurrence is the fastest and meets 1e-2 at 4096, but bounded fails at 30.
  EXPECT_EQ(excluded_by(c[4], 4096), "bounded");
  EXPECT_EQ(recommend(c, {"float32"}, {4096}, {"1e-2"})[0].entry, "cpu/precise/f64>f32/hwy");
  EXPECT_EQ(recommend_for_model(c, "deepseek-v3", {"float32"}, 131072, {"1e-2"})[0].entry,
            "cpu/precise/f64>f32/hwy");
  // Positions 0 .. 15 and 0 .. 29 never reach 30: it qualifies, and it is the fastest by far.
  EXPECT_EQ(recommend(c, {"float32"}, {16}, {"1e-2"})[0].entry, recurrence);
  EXPECT_EQ(recommend(c, {"float32"}, {30}, {"1e-2"})[0].entry, recurrence);
  EXPECT_NE(recommend(c, {"float32"}, {31}, {"1e-2"})[0].entry, recurrence);
  EXPECT_EQ(recommend_for_model(c, "llama-3.1-8b", {"float32"}, 16, {"1e-2"})[0].entry, recurrence);
}

TEST(recommend_rule, FailureAtNoKnownPositionRulesOutEveryContext) {
  std::vector<EntryResult> e = study_entries();
  EntryResult& recurrence = e[4];
  recurrence.verdicts = {};
  verdict(recurrence, "claim").holds = false;  // no first_failure, no worst elements
  const std::vector<Candidate> c = candidates_of(e);
  EXPECT_EQ(excluded_by(c[4], 1), "claim");
  for (const uint64_t context : {1, 16, 4096})
    EXPECT_EQ(recommend(c, {"float32"}, {context}, {"1e-2"})[0].entry, "cpu/precise/f64>f32/hwy");
  EXPECT_EQ(recommend_for_model(c, "llama-3.1-8b", {"float32"}, 16, {"1e-2"})[0].entry,
            "cpu/precise/f64>f32/hwy");
}

TEST(recommend_rule, AnyPropertyCountsByNameAndPosition) {
  std::vector<EntryResult> e = study_entries();
  EntryResult& recurrence = e[4];
  recurrence.verdicts = {};
  properties::PropertyVerdict& v =
      verdict(recurrence, "consistent");  // a property the rule never names
  v.holds = false;
  v.figures["first_failure"] = 100;
  v.worst.emplace_back().pos = 50;  // a recorded first failure outranks the worst elements
  const std::vector<Candidate> c = candidates_of(e);
  EXPECT_EQ(first_position(v), 100u);
  EXPECT_EQ(recommend(c, {"float32"}, {100}, {"1e-2"})[0].entry, recurrence.name);
  EXPECT_EQ(excluded_by(c[4], 101), "consistent");
}

TEST(recommend_rule, NoTypeIsAskedATargetItCannotHold) {
  const std::vector<Candidate> c = candidates_of(study_entries());
  // The report's questions: bfloat16 and float16 are not asked 1e-4, float32 is.
  for (const Recommendation& r : recommend(c, kDtypes, kContexts, kTargets))
    EXPECT_FALSE(r.dtype != "float32" && r.target == "1e-4") << r.dtype << " " << r.target;
  for (const Recommendation& r :
       recommend_for_model(c, "llama-3.1-8b", {"float32", "bfloat16"}, 131072, kTargets))
    EXPECT_FALSE(r.dtype == "bfloat16" && r.target == "1e-4");
  // A user who asks it anyway is told why none can.
  const std::vector<Recommendation> asked = recommend(c, {"bfloat16"}, {4096}, {"1e-4"}, true);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_TRUE(asked[0].entry.empty());
  EXPECT_NE(asked[0].evidence.find("below what bfloat16 can hold"), std::string::npos);
  // recommend's defaults swap 1e-4 for the smallest target each type holds.
  EXPECT_EQ(default_targets(Dtype::kFloat32), (std::vector<std::string>{"1e-4", "faithful"}));
  EXPECT_EQ(default_targets(Dtype::kBFloat16), (std::vector<std::string>{"1e-2", "faithful"}));
  EXPECT_EQ(default_targets(Dtype::kFloat16), (std::vector<std::string>{"1e-2", "faithful"}));
}

TEST(recommend_report, ReportJsonGivesTheStudysRecommendations) {
  const std::vector<EntryResult> e = study_entries();
  StudyResult s;
  s.entries = e;
  // Through text, as `peverify recommend` reads it from disk.
  const nlohmann::json j = nlohmann::json::parse(to_json(s).dump(2));
  const std::vector<Candidate> read = candidates_from_report(j, "report.json");
  const std::vector<Candidate> direct = candidates_of(e);
  for (const uint64_t context : {uint64_t{16}, uint64_t{4096}, uint64_t{1} << 20}) {
    const auto a = recommend(read, kDtypes, {context}, kTargets);
    const auto b = recommend(direct, kDtypes, {context}, kTargets);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].entry, b[i].entry);
      EXPECT_EQ(a[i].evidence, b[i].evidence);
    }
  }
  EXPECT_EQ(recommend_for_model(read, "deepseek-v3", {"float32"}, 131072, kTargets)[1].entry,
            recommend_for_model(direct, "deepseek-v3", {"float32"}, 131072, kTargets)[1].entry);
}

TEST(recommend_report, MalformedOrForeignReportIsOneLineNamingTheField) {
  StudyResult s;
  s.entries = study_entries();
  const nlohmann::json good = to_json(s);
  const auto message = [](const nlohmann::json& j) {
    try {
      candidates_from_report(j, "r/report.json");
    } catch (const FileError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message(good), "(accepted)");
  EXPECT_EQ(message(nlohmann::json::array()),
            "r/report.json is not a peverify report (no \"generator\": \"peverify report\")");
  nlohmann::json j = good;
  j["schema_version"] = 7;
  EXPECT_EQ(message(j), "r/report.json: schema_version 7; this peverify reads 1");
  j = good;
  j["implementations"][2]["horizons"]["1e-2"] = "far";
  EXPECT_EQ(message(j), "r/report.json: implementations[2].horizons.1e-2 must be a position");
  j = good;
  j["implementations"][0]["properties"][1].erase("holds");
  EXPECT_EQ(message(j), "r/report.json: implementations[0].properties[1].holds is missing");
  j = good;
  j["implementations"][1]["values_per_s_min"] = 1e12;
  EXPECT_NE(message(j).find("values_per_s must lie within"), std::string::npos);
  for (const nlohmann::json& x : {good, j}) EXPECT_EQ(message(x).find('\n'), std::string::npos);
}

// Each plain cell's code (docs/features.md §14.1): float64 PyTorch where it meets the target,
// peverify's generator only where nothing in PyTorch does, Hugging Face's float32 code never,
// however fast, and named as what the answer replaces.
TEST(recommend_rule, PyTorchCodeIsFloat64ThenPeverifyNeverTheFloat32Angle) {
  const std::map<std::string, uint64_t> all = {
      {"1e-4", kStudied}, {"1e-2", kStudied}, {"faithful", kStudied}};
  const std::vector<EntryResult> entries = {
      entry("cpu/precise/f64>f32/hwy", "float32", 5.5e9, 0.05, 6e-8, all),
      entry("cpu/pow/f64>f32/torch", "float32", 2e8, 0.05, 6e-8,
            {{"1e-4", kStudied}, {"1e-2", kStudied}, {"faithful", 1000}}),
      entry("cpu/pow/f32>f32/torch", "float32", 9e9, 0.05, 8e-3,
            {{"1e-4", 1039}, {"1e-2", kStudied}}),
  };
  const std::vector<Recommendation> recs =
      recommend(candidates_of(entries), {"float32"}, {131072}, kTargets);
  ASSERT_EQ(recs.size(), 3u);
  for (const Recommendation& r : recs) {
    ASSERT_TRUE(r.pytorch) << r.target;
    EXPECT_EQ(r.entry, r.target == "1e-2" ? "cpu/pow/f32>f32/torch" : "cpu/precise/f64>f32/hwy");
    EXPECT_EQ(r.pytorch->entry,
              r.target == "faithful" ? "cpu/precise/f64>f32/hwy" : "cpu/pow/f64>f32/torch");
    EXPECT_NE(r.pytorch->code.find("def sinusoidal_table(n, d, base=10000.0)"), std::string::npos);
    EXPECT_NE(r.pytorch->code.find(r.target == "faithful" ? "peverify.generate" : "torch.float64"),
              std::string::npos);
    EXPECT_NE(
        r.pytorch->replaces.find(
            r.target == "faithful"
                ? "`cpu/pow/f32>f32/torch`), which misses faithful from position 0"
                : "`cpu/pow/f32>f32/torch`), which meets " + r.target + " only up to position"),
        std::string::npos)
        << r.pytorch->replaces;
    const nlohmann::json j = to_json(r);
    EXPECT_EQ(j["pytorch"]["implementation"], r.pytorch->entry);
  }
  // Float16 has no snippet-carrying entry here: no code, rather than a guess.
  EXPECT_FALSE(recommend(candidates_of(entries), {"float16"}, {131072}, {"1e-2"}, true)[0].pytorch);
}

}  // namespace
}  // namespace pev::reports::study
