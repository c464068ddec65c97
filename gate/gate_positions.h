// The gate on a table subject at position ids (docs/architecture.md §8, docs/mathematics.md §1.4):
// a band holds the rows whose position (the largest of an M-RoPE row's three) falls in it, in any
// order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "peverify/encoding/positions.h"
#include "peverify/encoding/spec.h"
#include "peverify/oracle/engine.h"
#include "peverify/tables/table_stream.h"

namespace pev::gate {

// Visits rows of (got, exact) values: `first` is the position of the first of n rows.
using BlockVisitor =
    std::function<void(uint64_t first, uint64_t n, const double* got, const double* exact)>;

struct PositionedBand {
  std::vector<uint64_t> rows;  // file rows, in file order
  RowPositions ids;            // their position ids
};
PositionedBand rows_in_band(const RowPositions& all, uint64_t first, uint64_t last);

// The band's rows, one at a time, each at its own position (an element is named by position: its
// row is the file's row at that position).
void visit_rows(const PositionedBand& band, const TableStream& table, const TableSpec& spec,
                const oracle::Engine& engine, const BlockVisitor& visit);

// The band's file row that holds `value` at `position`, `column` (an element found by position
// alone); nullopt when none does.
std::optional<uint64_t> row_holding(const PositionedBand& band, const TableStream& table,
                                    uint64_t position, int column, double value);

}  // namespace pev::gate
