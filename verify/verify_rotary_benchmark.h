// `peverify bench --verify-rotary`: how long `peverify verify-rotary` takes on the q of a long
// prefill (default 131072 tokens x 32 heads x 128, bfloat16 in and out: 1 GiB each), beside the
// time to read both files and the check a user would write in numpy instead (a float64 rotation,
// max |out - ref|), all in the same run (docs/features.md §15).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "peverify/verify/verify_benchmark.h"

namespace pev::verify {

struct VerifyRotaryBenchConfig {
  uint64_t tokens = 131072;
  int heads = 32, head_dim = 128;
  std::string work_dir = "/tmp";
  int repetitions = 3;
  int threads = 0;
  bool numpy = true;
};

struct VerifyRotaryBenchResult {
  uint64_t tokens = 0, elements = 0, bytes = 0;  // bytes: both files
  int heads = 0, head_dim = 0, threads = 0;
  bool holds = false;
  Spread seconds, cpu_seconds, read_seconds;  // verify-rotary; reading both files alone
  std::optional<Spread> numpy_seconds;
  std::string numpy_note;
};

VerifyRotaryBenchResult run_verify_rotary_benchmark(
    const VerifyRotaryBenchConfig& config, const std::function<void(const std::string&)>& progress);
nlohmann::json to_json(const VerifyRotaryBenchResult& r);
std::string to_text(const VerifyRotaryBenchResult& r);

}  // namespace pev::verify
