// The comparison study behind `peverify report`: every registry entry's accuracy against the
// exact values (per position band), its property verdicts, fitted growth constant and horizons,
// and its speed beside the roofline; then the recommendation.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/bench/bench_report.h"
#include "peverify/core/implementation.h"
#include "peverify/measure/judge.h"
#include "peverify/properties/checks.h"
#include "peverify/reports/study/rotation_scores.h"
#include "peverify/reports/study/sinusoid_scores.h"

namespace pev::reports::study {

struct StudyConfig {
  std::vector<int> d_models = {512, 4096};
  std::vector<double> bases = {1e4, 5e5};
  uint64_t exhaustive_positions = 8192;            // every row below this ...
  uint64_t exhaustive_values = uint64_t{1} << 23;  // ... as long as rows x d stays below this
  uint64_t max_position = uint64_t{1} << 24;       // blocks sampled on a log scale up to here
  int sampled_blocks = 40;                         // of kSampleRows rows each
  std::string filter;                              // regex over implementation names
  bool bench = true;                               // quick benchmark of every entry
  int threads = 0;                                 // <= 0: all cores
  // The rotary section: each model preset's cos/sin cache (models/*.json), positions 0 ..
  // rotary_positions - 1, built by every entry with a float32 or bfloat16 output.
  std::vector<std::string> rotary_models = {"llama-3.1-8b", "qwen2.5-7b-yarn", "deepseek-v3"};
  uint64_t rotary_positions = 131072;
  // The entries that build a rotary cache the way Hugging Face's float32 code does, per output
  // type (core/frameworks, bit-identical to it): they build every model's cache at every
  // position, and the findings give their verdict on every model.
  std::map<std::string, std::string> framework_entries = {{"float32", "cpu/pow/f32>f32/torch"},
                                                          {"bfloat16", "cpu/pow/f32>bf16/torch"}};
};

// Reads a study config (JSON with any of the fields above); throws FileError when malformed.
StudyConfig read_study_config(const std::string& path);
// The same from the file's text; `path` names it in messages.
StudyConfig study_config_from_json(std::string_view text, const std::string& path);

using measure::kUlpFloor;  // ulps are reported at max(|exact|, kUlpFloor)

struct Band {
  uint64_t first = 0, last = 0;  // positions [first, last]
  measure::Figures figures;      // every measured element in it, against the entry's claim
  double max_ulp_floored = 0;    // the largest error in ulps of max(|exact|, kUlpFloor)
};

// One rotary model's cache as an entry builds it.
struct ModelResult {
  std::string model;         // the preset's name
  measure::Figures figures;  // every measured element, against the entry's claim
  double max_ulp_floored = 0;
  std::map<std::string, uint64_t> horizons;  // target -> largest position meeting it
  bool every_row = false;  // every position measured (the framework entries), else a sample
};

struct EntryResult {
  std::string name, strategy, compute, output, backend, claim, description;
  uint64_t max_position = 0;
  bool available = true;
  std::string unavailable_reason;
  std::string modelled;  // CUDA entries: the host device-model's bound (modelled, not measured)
  std::vector<Band> bands;
  double max_abs = 0, mean_abs = 0, max_ulp = 0, max_ulp_floored = 0;
  uint64_t elements = 0;
  std::vector<properties::PropertyVerdict> verdicts;  // every property checked, and the claim
  double fitted_c = 0;
  // Target -> the largest position measured up to which every measured row of every plain grid
  // meets it (absent when even the first rows miss it).
  std::map<std::string, uint64_t> horizons;
  std::vector<std::pair<uint64_t, double>> error_curve;  // (position, max abs), the first grid
  std::vector<ModelResult> models;     // the rotary section (entries that build the caches)
  std::optional<Spread> values_per_s;  // median, min and max over the repetitions
  std::optional<double> roofline_ratio;
};

// A plain cell's answer in the user's own code (reports/study/snippets.h): the fastest entry
// that PyTorch code reproduces, by the same rule, and the code.
struct PyTorchAdvice {
  std::string entry, code, cuda;
  std::string evidence;  // the rule's evidence for `entry`
  std::string replaces;  // Hugging Face's float32 code storing the type, and how far it meets it
};

struct Recommendation {
  std::string model;  // the rotary model preset; empty for the plain encoding
  std::string dtype;  // float32, float16, bfloat16
  uint64_t context = 0;
  std::string target;
  std::string entry;  // empty: nothing meets it
  std::string evidence;
  std::optional<PyTorchAdvice> pytorch;  // plain cells whose target some snippet meets
};

// A rotary model as the study built it.
struct ModelStudy {
  std::string name;
  int rotary_dim = 0;
  double base = 0;
  std::string recipe;  // describe(rope)
  double attention = 1;
};

struct StudyResult {
  StudyConfig config;
  std::vector<ModelStudy> models;
  std::vector<EntryResult> entries;
  std::optional<bench::Report> bench;
  std::vector<Recommendation> recommendations;  // by reports/recommend.h's rule
  std::optional<RotationScores> rotations;      // the rotations' section (§15.6)
  std::optional<SinusoidScores> sinusoids;      // timestep embeddings, multi-axis RoPE (§16.5)
  double seconds = 0;
  std::string date;  // when the study finished: ISO 8601, UTC
};

// The study cut into shards (docs/architecture.md §8, `peverify sweep`): one accuracy shard per
// (entry, grid, part of the grid's positions) and one properties shard per entry. Every statistic a
// shard yields merges by max or sum; merging in canonical shard order makes the sums reproducible.
struct ShardId {
  size_t entry = 0;  // index into StudyPlan::impls
  int grid = -1;     // -1: the entry's properties shard
  int part = 0;
  std::string key() const;  // a file name: "e012-g1-p03" or "e012-props"
};

struct ShardResult {
  std::vector<Band> bands;  // per report band (plain grids' accuracy shards)
  measure::Figures rotary;  // a rotary grid's accuracy shard
  double rotary_ulp_floored = 0;
  // Target -> the first measured position whose row misses it, and the last position measured.
  std::map<std::string, uint64_t> first_failure;
  std::optional<uint64_t> last_measured;
  std::map<int, double> curve;  // octave -> max abs (d 512, base 1e4)
  std::vector<properties::PropertyVerdict>
      verdicts;  // bounded, unique, shift, growth (properties shard)
  double fitted_c = 0;
};

// The registry entries whose names `filter` (a regex; empty: all) matches; ConfigError naming the
// filter when it matches none. Commands call it before they create an output directory.
std::vector<const core::Implementation*> select_implementations(const std::string& filter);
// Why `filter` cannot be used as a regular expression (one line), or nullopt. Repetition counts
// beyond 9999 and numbers of ten digits or more (back-references) are refused before std::regex
// sees them: libstdc++'s regex compiler overflows a signed integer on 19-digit numbers (undefined
// behaviour; found by reports_fuzz_study_config).
std::optional<std::string> filter_problem(const std::string& filter);

class StudyPlan {
 public:
  explicit StudyPlan(const StudyConfig& config);
  ~StudyPlan();
  const StudyConfig& config() const { return config_; }
  const std::vector<const core::Implementation*>& impls() const { return impls_; }
  // Every shard, in the canonical (merge) order; depends only on the config and the registry.
  const std::vector<ShardId>& shards() const { return shards_; }
  // Computes one shard; exact values are computed on first use (thread safe) with `threads`.
  ShardResult run(const ShardId& shard, int threads) const;
  // Computes the exact values of every grid up front.
  void prepare(int threads, const std::function<void(double)>& progress) const;
  // The entries merged from every shard's result, given in shards() order.
  std::vector<EntryResult> merge(const std::vector<ShardResult>& results) const;

 private:
  struct Impl;
  StudyConfig config_;
  std::vector<const core::Implementation*> impls_;
  std::vector<ShardId> shards_;
  std::unique_ptr<Impl> impl_;
};

// The quick benchmark (when configured) and the recommendations, after the entries are known.
void finish_study(StudyResult& result, size_t implementations,
                  const std::function<void(const std::string&, double)>& progress);

// The bands accuracy is reported in.
std::vector<std::pair<uint64_t, uint64_t>> report_bands(uint64_t max_position);

// Now, as every result records its date: ISO 8601, UTC, to the second.
std::string utc_timestamp();

StudyResult run_study(const StudyConfig& config,
                      const std::function<void(const std::string&, double)>& progress);

}  // namespace pev::reports::study
