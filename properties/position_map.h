// A table whose rows are at given position ids (docs/mathematics.md §1.4), as the per-element
// checks see it: its rows in order of their positions (so that a column's errors vary smoothly
// along the pass, whatever order the file holds them in), each judged at its own position. The
// checks work on indices into that order; this says which file row and which position an index is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "peverify/encoding/positions.h"
#include "peverify/encoding/spec.h"
#include "peverify/measure/judge.h"

namespace pev::properties {

using measure::Finding;

class PositionMap {
 public:
  PositionMap(TableSpec spec, RowPositions positions);
  uint64_t rows() const { return order_.size(); }
  // The file row at index i of the position order.
  uint64_t row(uint64_t index) const { return order_[index]; }
  // The position index i's error budget grows with (the largest of its streams).
  uint64_t position(uint64_t index) const { return budget_[index]; }
  const uint64_t* positions_from(uint64_t index) const { return budget_.data() + index; }
  // Whether index i holds the same positions as index i - 1 (a repeated row of a gathered cache).
  bool repeats_previous(uint64_t index) const;
  // "row 17 at position 4242", "row 17 at positions t 3, h 5, w 7".
  std::string name(uint64_t index) const;
  // A finding made at index space (pos = index) with its file row and real position.
  Finding located(Finding f) const;
  // A finding with its file row: where the row's M-RoPE streams differ, its position becomes the
  // one its pair's angle is of, and `stream` says which (Finding::stream).
  void name_stream(Finding& f) const;
  // Exact values (correctly rounded to double) of index i's row in the spec's layout.
  std::vector<double> exact_row(uint64_t index) const;
  // Correctly rounded values of index i's row in `dtype`, widened.
  std::vector<double> rounded_row(uint64_t index, Dtype dtype) const;
  const RowPositions& positions() const { return positions_; }
  const std::vector<uint64_t>& order() const { return order_; }

 private:
  TableSpec spec_;
  RowPositions positions_;
  std::vector<uint64_t> order_, budget_;
  std::vector<double> row_values(uint64_t index, Dtype dtype, bool exact) const;
};

}  // namespace pev::properties
