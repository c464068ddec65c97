// `peverify measure-cuda`: the CUDA entries measured on this machine's GPU, as a measured-results
// document (measured_results.h): the study of every CUDA entry (accuracy per band, properties,
// growth), each entry's error beside its host model's bound on the model's own grids, and every
// table entry and rotation timed with CUDA events beside the device's store roofline measured in
// the same run.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace pev::reports::measured {

struct MeasureOptions {
  std::string
      commit;  // the commit the binaries were built from (scripts/device/pack-bundle records it)
  std::string command;           // the command line, recorded in the file
  int repetitions = 20;          // timed repetitions of each kernel (after one warm-up)
  uint64_t table_rows = 131072;  // the timed tables: rows x table_d of each entry's output type
  int table_d = 4096;
  uint64_t tokens = 131072;  // the timed rotations: tokens x heads x head_dim of q
  int heads = 32, head_dim = 128;
  int threads = 0;  // the study's host threads (<= 0: all cores)
};

// Why this machine cannot measure (one line), or nullopt: no CUDA device of compute capability
// 8.0 or newer, or peverify built without nvcc.
std::optional<std::string> cannot_measure_here();

// Throws std::runtime_error with cannot_measure_here()'s line where it says one.
nlohmann::json measure_cuda(const MeasureOptions& options,
                            const std::function<void(const std::string&, double)>& progress);

// A timed kernel's figures: seconds, values/s and bytes/s as medians with their spread, and the
// median bytes/s over `roofline_bytes_per_s`.
nlohmann::json speed_figures(const std::vector<double>& seconds, double values, double bytes,
                             double roofline_bytes_per_s);

}  // namespace pev::reports::measured
