#include "peverify/measure/sampling.h"

#include <algorithm>
#include <cmath>

namespace pev::measure {

std::vector<RowBlock> log_spaced_blocks(uint64_t lo, uint64_t hi, int steps, uint64_t rows,
                                        bool include_lo) {
  std::vector<RowBlock> blocks;
  if (lo == 0 || hi < lo || steps <= 0) return blocks;
  uint64_t end = lo;
  const double ratio = static_cast<double>(hi) / static_cast<double>(lo);
  for (int j = include_lo ? 0 : 1; j <= steps; ++j) {
    const double f = std::pow(ratio, j / static_cast<double>(steps));
    const uint64_t first =
        std::min<uint64_t>(hi, static_cast<uint64_t>(std::llround(static_cast<double>(lo) * f)));
    if (first < end) continue;
    blocks.push_back({first, rows});
    end = first + rows;
  }
  return blocks;
}

}  // namespace pev::measure
