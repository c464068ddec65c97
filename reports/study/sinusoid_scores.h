// The report's section on the other sinusoidal tables (docs/features.md §16.5): every entry of the
// sinusoid registry (core/sinusoids) on a diffusion timestep embedding and a Flux multi-axis RoPE
// table, every element against the exact oracle, the error by timestep range and by grid size,
// each table's fill timed beside the store roofline of the same bytes, and which entry to use.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "peverify/encoding/sinusoids/table.h"

namespace pev::reports::study {

// One table the section studies, and the row sets it reports on.
struct SinusoidCase {
  std::string name, description;
  SinusoidTable table;
  AxisPositions positions;
  std::vector<std::pair<std::string, std::vector<uint64_t>>> bands;  // label, rows
};
// A diffusers/ADM timestep embedding (D 320, t = 0 .. 999), Flux's (D 256, 1000 sigmas times
// 1000) and Flux's RoPE cache (16+56+56) of 512 text tokens and a 128 x 128 image grid, its
// bands the grids of 32, 64 and 128 patches a side.
std::vector<SinusoidCase> sinusoid_cases();

struct SinusoidBandScore {
  double max_abs = 0, max_ulp = 0;  // ulps of max(|exact|, 2^-10), as the report's
  bool holds = true;                // every element within the entry's claim
  bool faithful = true;             // every element one of the two values around the exact one
};

struct SinusoidEntryScore {
  std::string name, description, claim, output;
  std::vector<SinusoidBandScore> bands;  // one per case band
  double seconds = 0;                    // median fill of the whole table
  double values_per_s = 0;
  double roofline_ratio = 0;  // bytes/s over the best store fill of the same bytes (same run)
};

struct SinusoidCaseScore {
  std::string name, description;
  uint64_t rows = 0, width = 0;
  std::vector<std::string> bands;
  std::vector<SinusoidEntryScore> entries;
};

struct SinusoidScores {
  std::vector<SinusoidCaseScore> cases;
  // Per case and output type: the fastest entry faithful everywhere, and what the framework's
  // own arithmetic gives in its place.
  std::vector<std::string> recommendations;
  double seconds = 0;
};

SinusoidScores study_sinusoid_scores(int threads);

nlohmann::json to_json(const SinusoidScores& s);

}  // namespace pev::reports::study
