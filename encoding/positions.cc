#include "peverify/encoding/positions.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "peverify/encoding/rope.h"

namespace pev {

uint64_t RowPositions::of_pair(const TableSpec& spec, uint64_t row, int pair) const {
  if (streams.size() == 1) return streams[0][row];
  return streams[static_cast<size_t>(mrope_stream(spec.rope, pair))][row];
}

uint64_t RowPositions::budget_position(uint64_t row) const {
  uint64_t m = 0;
  for (const auto& s : streams) m = std::max(m, s[row]);
  return m;
}

bool RowPositions::single(uint64_t row) const {
  for (const auto& s : streams)
    if (s[row] != streams[0][row]) return false;
  return true;
}

uint64_t RowPositions::max_position() const {
  uint64_t m = 0;
  for (const auto& s : streams)
    if (!s.empty()) m = std::max(m, *std::max_element(s.begin(), s.end()));
  return m;
}

std::string RowPositions::describe(const std::string& name) const {
  uint64_t lo = UINT64_MAX;
  for (const auto& s : streams)
    if (!s.empty()) lo = std::min(lo, *std::min_element(s.begin(), s.end()));
  return fmt::format(
      "{}: {} x {} rows, ids {} .. {}", name,
      streams.size() == 1 ? std::string("1 stream") : fmt::format("{} streams", streams.size()),
      rows(), rows() ? lo : 0, max_position());
}

std::optional<PositionIdsShape> position_ids_shape(const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> dims;
  for (const uint64_t d : shape)
    if (d != 1) dims.push_back(d);
  if (dims.empty() && !shape.empty()) dims.push_back(1);  // [1] and [1, 1]: one id
  if (dims.size() == 1) return PositionIdsShape{1, dims[0]};
  if (dims.size() == 2 && dims[0] == 3) return PositionIdsShape{3, dims[1]};
  return std::nullopt;
}

RowPositions consecutive_positions(const TableSpec& spec, uint64_t rows) {
  RowPositions p;
  p.streams.assign(1, std::vector<uint64_t>(rows));
  std::iota(p.streams[0].begin(), p.streams[0].end(), spec.start);
  return p;
}

std::optional<std::string> validate_positions(const RowPositions& p, const TableSpec& spec,
                                              uint64_t rows) {
  if (p.streams.size() != 1 && p.streams.size() != 3)
    return fmt::format("position ids must be one stream [N] or three [3, N] (M-RoPE), got {}",
                       p.streams.size());
  if (p.streams.size() == 3 && spec.rope.mrope_section.empty())
    return std::string(
        "three streams of position ids [3, N] need an M-RoPE recipe (rope_scaling with "
        "mrope_section)");
  for (const auto& s : p.streams)
    if (s.size() != rows)
      return fmt::format("{} position ids for a table of {} rows: one id per row", s.size(), rows);
  if (p.max_position() > kMaxPosition)
    return fmt::format("position id {} is beyond 2^53", p.max_position());
  return std::nullopt;
}

void set_sequence_length(TableSpec& spec, const RowPositions& p) {
  if (needs_sequence_length(spec.rope)) spec.rope.sequence_length = p.max_position() + 1;
}

IdRuns id_runs(std::vector<uint64_t> ids, size_t max_run) {
  IdRuns r;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  r.distinct = std::move(ids);
  for (size_t i = 0; i < r.distinct.size();) {
    size_t end = i + 1;
    while (end < r.distinct.size() && r.distinct[end] == r.distinct[end - 1] + 1 &&
           end - i < max_run)
      ++end;
    r.runs.emplace_back(i, end);
    i = end;
  }
  return r;
}

size_t IdRuns::index_of(uint64_t id) const {
  return static_cast<size_t>(std::lower_bound(distinct.begin(), distinct.end(), id) -
                             distinct.begin());
}

std::vector<uint64_t> rows_by_position(const RowPositions& p) {
  std::vector<uint64_t> order(p.rows());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
    for (const auto& s : p.streams)
      if (s[a] != s[b]) return s[a] < s[b];
    return false;
  });
  return order;
}

}  // namespace pev
