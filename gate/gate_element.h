// Naming the element a failing band of the gate comes from (docs/architecture.md §8): the largest
// by the figure that broke its record, scanned again (the measuring pass keeps no positions), and
// its one-line description.
#pragma once

#include <functional>
#include <string>

#include "peverify/gate/gate.h"
#include "peverify/gate/gate_positions.h"
#include "peverify/measure/judge.h"

namespace pev::gate {

// Columns [first, end) of a row; end -1: to the row's end.
struct ColumnRange {
  int first = 0, end = -1;
};

// The largest element by `figure` among `columns` (a column group's record: max_abs).
measure::Finding largest_element(const std::function<void(const BlockVisitor&)>& for_each_block,
                                 const measure::Judge& judge,
                                 const std::function<double(uint64_t)>& steps,
                                 double BandFigures::*figure, double record,
                                 ColumnRange columns = {});

// "row R at position P, column C: value, exact, error (ulp), allowed (why)".
std::string describe_element(const measure::Finding& f);

}  // namespace pev::gate
