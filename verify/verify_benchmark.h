// `peverify bench --verify`: how long `peverify verify` takes on a big table (every element
// against its exact value, every property), beside the weaker check a user would write in numpy
// instead (a float64 reference computed in blocks, max |table - ref|), measured in the same run.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "peverify/support/spread.h"

namespace pev::verify {

struct VerifyBenchConfig {
  std::string table;       // an existing .npy table (paper schedule, base 1e4, interleaved)
  uint64_t rows = 131072;  // else one of rows x d_model float32 values is made in work_dir
  int d_model = 4096;
  std::string work_dir = "/tmp";
  int repetitions = 3;
  int threads = 0;
  bool numpy = true;  // also time the numpy check where python3 and numpy are present
};

// User + system seconds of this process so far, over all its threads.
double process_cpu_seconds();

struct VerifyBenchResult {
  std::string table, coverage;
  uint64_t rows = 0, elements = 0, bytes = 0;
  int threads = 0;
  bool holds = false;
  Spread seconds;      // verify, wall clock
  Spread cpu_seconds;  // verify, user + system over its threads: what a busy machine cannot hide
  std::vector<std::pair<std::string, double>> share;  // of the stages' CPU seconds
  double peak_rss_mib = 0;                            // this process, after the runs
  std::optional<Spread> numpy_seconds, numpy_cpu_seconds;
  std::optional<double> numpy_peak_rss_mib;
  std::string numpy_note;  // why there is no numpy figure, or its max |error|
};

VerifyBenchResult run_verify_benchmark(const VerifyBenchConfig& config,
                                       const std::function<void(const std::string&)>& progress);
nlohmann::json to_json(const VerifyBenchResult& r);
std::string to_text(const VerifyBenchResult& r);

}  // namespace pev::verify
