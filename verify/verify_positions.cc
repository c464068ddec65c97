#include "peverify/verify/verify_positions.h"

namespace pev::verify {

properties::RowReader in_position_order(properties::RowReader read,
                                        const properties::PositionMap& map, uint64_t width) {
  return [read = std::move(read), &map, width](uint64_t first, uint64_t n, double* out) {
    for (uint64_t i = 0; i < n;) {
      uint64_t end = i + 1;
      while (end < n && map.row(first + end) == map.row(first + end - 1) + 1) ++end;
      read(map.row(first + i), end - i, out + i * width);
      i = end;
    }
  };
}

ConsecutiveRun longest_run(const properties::PositionMap& map, const properties::RowReader& read,
                           uint64_t width, const std::string& name, Dtype dtype, const Claim& claim,
                           const TableSpec& spec) {
  std::vector<uint64_t> best, current;  // indices into the position order
  const auto single_at = [&](uint64_t i) { return map.positions().single(map.row(i)); };
  for (uint64_t i = 0; i < map.rows(); ++i) {
    if (!single_at(i) || map.repeats_previous(i)) continue;
    if (!current.empty() && map.position(i) != map.position(current.back()) + 1) current.clear();
    current.push_back(i);
    if (current.size() > best.size()) best = current;
  }
  ConsecutiveRun run;
  run.spec = spec;
  run.rows = best.size();
  run.spec.start = best.empty() ? 0 : map.position(best.front());
  auto indices = std::make_shared<std::vector<uint64_t>>(std::move(best));
  run.table =
      properties::streamed_table(name, dtype, claim, run.spec, run.rows,
                                 [indices, read, width](uint64_t first, uint64_t n, double* out) {
                                   for (uint64_t i = 0; i < n; ++i)
                                     read((*indices)[first + i], 1, out + i * width);
                                 });
  return run;
}

std::vector<std::pair<uint64_t, uint64_t>> smooth_runs(const properties::PositionMap& map) {
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  const auto& streams = map.positions().streams;
  uint64_t first = 0;
  for (uint64_t i = 1; i <= map.rows(); ++i) {
    bool continues = i < map.rows();
    for (size_t s = 0; s < streams.size() && continues; ++s) {
      const uint64_t a = streams[s][map.row(i - 1)], b = streams[s][map.row(i)];
      continues = (a > b ? a - b : b - a) <= 1;
    }
    if (continues) continue;
    runs.emplace_back(first, i);
    first = i;
  }
  return runs;
}

}  // namespace pev::verify
