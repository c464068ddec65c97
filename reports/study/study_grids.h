// The tables the study measures (internal to reports/): plain grids of (d, base) and, for each
// rotary model preset, its cos/sin cache; each an exhaustive head of rows and blocks sampled on
// a log scale beyond it, cut into the parts that accuracy shards measure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/reports/study/study.h"

namespace pev::reports::study {

// Rows sampled per block beyond the exhaustive head.
inline constexpr uint64_t kSampleRows = 4;

// One table of the study: exact values for rows [spec.start, spec.start + rows).
struct Block {
  TableSpec spec;
  uint64_t rows = 0;
  std::vector<double> exact;
};

struct Grid {
  std::string model;          // the rotary model preset; empty for a plain (d, base) grid
  TableSpec spec;             // start 0; a rotary grid's spec carries its recipe
  uint64_t last_position;     // the largest position measured
  std::vector<Block> blocks;  // the exhaustive head, then the sampled blocks
  // A rotary model's cache at every position, measured for the framework entries alone (their
  // figures are the report's findings: what a user's own cache has, not a sample of it).
  bool every_row = false;
};

// The plain grids (d_models x bases, in that order), then per rotary model its sampled grid and,
// when the config names framework entries, its every-row grid.
std::vector<Grid> make_grids(const StudyConfig& config);

// Rows [row_begin, row_end) of one block of a grid: the rows one accuracy shard measures of it.
struct BlockRows {
  size_t block;
  uint64_t row_begin, row_end;
};

// The parts a grid's positions are cut into: the exhaustive head in chunks of about 2^21 values,
// then all the sampled blocks together.
std::vector<std::vector<BlockRows>> parts_of(const Grid& g);

// The largest position measured in any of `grids` that is below `first_failure` (none: every
// measured position) and at most `max_position`; nullopt when there is none.
std::optional<uint64_t> horizon_of(const std::vector<const Grid*>& grids,
                                   std::optional<uint64_t> first_failure, uint64_t max_position);

}  // namespace pev::reports::study
