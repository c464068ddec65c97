#include "peverify/properties/position_map.h"

#include <fmt/format.h>

#include "peverify/encoding/layout.h"
#include "peverify/encoding/rope.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/positioned.h"
#include "peverify/oracle/table.h"

namespace pev::properties {

PositionMap::PositionMap(TableSpec spec, RowPositions positions)
    : spec_(std::move(spec)),
      positions_(std::move(positions)),
      order_(rows_by_position(positions_)) {
  budget_.resize(order_.size());
  for (uint64_t i = 0; i < order_.size(); ++i) budget_[i] = positions_.budget_position(order_[i]);
}

bool PositionMap::repeats_previous(uint64_t index) const {
  if (index == 0) return false;
  for (const auto& s : positions_.streams)
    if (s[order_[index]] != s[order_[index - 1]]) return false;
  return true;
}

std::string PositionMap::name(uint64_t index) const {
  const uint64_t r = order_[index];
  if (positions_.single(r))
    return fmt::format("row {} at position {}", r, positions_.streams[0][r]);
  return fmt::format("row {} at positions t {}, h {}, w {}", r, positions_.streams[0][r],
                     positions_.streams[1][r], positions_.streams[2][r]);
}

Finding PositionMap::located(Finding f) const {
  const uint64_t index = f.pos;
  f.pos = budget_[index];
  f.row = order_[index];
  name_stream(f);
  return f;
}

void PositionMap::name_stream(Finding& f) const {
  if (!f.row || positions_.stream_count() != 3 || positions_.single(*f.row)) return;
  const int pair = pair_of_column(spec_.layout, spec_.d_model / 2, f.column).pair;
  f.stream = mrope_stream(spec_.rope, pair);
  f.pos = positions_.streams[static_cast<size_t>(f.stream)][*f.row];
}

std::vector<double> PositionMap::row_values(uint64_t index, Dtype dtype, bool exact) const {
  const auto engine = oracle::make_fast_engine(spec_, dtype);
  oracle::TileValues v;
  oracle::evaluate_rows(*engine, spec_, positions_, &order_[index], 1, v);
  std::vector<double> out(static_cast<size_t>(table_width(spec_)));
  oracle::layout_rows(spec_, v, 1, !exact, out.data());
  return out;
}

std::vector<double> PositionMap::exact_row(uint64_t index) const {
  return row_values(index, Dtype::kFloat64, true);
}

std::vector<double> PositionMap::rounded_row(uint64_t index, Dtype dtype) const {
  return row_values(index, dtype, false);
}

}  // namespace pev::properties
