#include "peverify/gate/gate_positions.h"

#include <cmath>

#include "peverify/oracle/positioned.h"
#include "peverify/oracle/table.h"

namespace pev::gate {

PositionedBand rows_in_band(const RowPositions& all, uint64_t first, uint64_t last) {
  PositionedBand b;
  b.ids.streams.resize(all.streams.size());
  for (uint64_t r = 0; r < all.rows(); ++r) {
    const uint64_t p = all.budget_position(r);
    if (p < first || p > last) continue;
    b.rows.push_back(r);
    for (size_t s = 0; s < all.streams.size(); ++s) b.ids.streams[s].push_back(all.streams[s][r]);
  }
  return b;
}

void visit_rows(const PositionedBand& band, const TableStream& table, const TableSpec& spec,
                const oracle::Engine& engine, const BlockVisitor& visit) {
  constexpr uint64_t kChunk = 256;
  const auto width = static_cast<size_t>(table_width(spec));
  std::vector<double> got(width), exact;
  std::vector<uint64_t> indices;
  oracle::TileValues values;
  for (uint64_t first = 0; first < band.rows.size(); first += kChunk) {
    const uint64_t n = std::min<uint64_t>(kChunk, band.rows.size() - first);
    indices.resize(n);
    for (uint64_t i = 0; i < n; ++i) indices[i] = first + i;
    oracle::evaluate_rows(engine, spec, band.ids, indices.data(), n, values);
    exact.resize(n * width);
    oracle::layout_rows(spec, values, n, false, exact.data());
    for (uint64_t i = 0; i < n; ++i) {
      table.read_rows(band.rows[first + i], 1, got.data());
      visit(band.ids.budget_position(first + i), 1, got.data(), &exact[i * width]);
    }
  }
}

std::optional<uint64_t> row_holding(const PositionedBand& band, const TableStream& table,
                                    uint64_t position, int column, double value) {
  std::vector<double> row(table.width());
  for (uint64_t i = 0; i < band.rows.size(); ++i) {
    if (band.ids.budget_position(i) != position) continue;
    table.read_rows(band.rows[i], 1, row.data());
    const double got = row[static_cast<size_t>(column)];
    if (got == value || (std::isnan(got) && std::isnan(value))) return band.rows[i];
  }
  return std::nullopt;
}

}  // namespace pev::gate
