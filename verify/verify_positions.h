// verify's pass over a table at position ids (verify.h, docs/mathematics.md §1.4): the rows in
// order of their positions, the runs of consecutive positions the shift, growth and consistency
// checks need. Internal to reports/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/spec.h"
#include "peverify/properties/position_map.h"
#include "peverify/properties/under_test.h"

namespace pev::verify {

// Reads the rows of `map`'s position order: index i is file row map.row(i); runs of consecutive
// file rows are read at once.
properties::RowReader in_position_order(properties::RowReader read,
                                        const properties::PositionMap& map, uint64_t width);

// The longest run of consecutive positions among rows whose streams agree, as a table of its own
// (positions spec.start .. spec.start + rows - 1): what shift and growth compare along.
struct ConsecutiveRun {
  TableSpec spec;
  uint64_t rows = 0;
  std::unique_ptr<properties::UnderTest> table;
};
ConsecutiveRun longest_run(const properties::PositionMap& map, const properties::RowReader& read,
                           uint64_t width, const std::string& name, Dtype dtype, const Claim& claim,
                           const TableSpec& spec);

// [first, end) index ranges of the position order in which every row's positions are within 1 of
// the previous row's, in every stream (repeats included): the consistency check's windows stay
// inside one, where a column's errors vary smoothly as they do in a table of consecutive
// positions. Across a gap the angle of a pair, and its error with it, changes arbitrarily.
std::vector<std::pair<uint64_t, uint64_t>> smooth_runs(const properties::PositionMap& map);

}  // namespace pev::verify
