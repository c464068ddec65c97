// Which rows to measure when a table is too long to measure every one (docs/mathematics.md §4):
// blocks of rows whose first positions grow geometrically, so every octave of positions is seen.
// The study, verify and the gate all sample through this.
#pragma once

#include <cstdint>
#include <vector>

namespace pev::measure {

struct RowBlock {
  uint64_t first = 0;  // first position (or row index)
  uint64_t rows = 0;
};

// Blocks of `rows` rows starting at lo * (hi / lo)^(j / steps), rounded to nearest and at most
// hi, for j = 0 (when include_lo) or 1 up to steps. A start is kept only if it lies at or after
// the end of the previous block (lo counts as the end of what came before). Requires 0 < lo <= hi.
std::vector<RowBlock> log_spaced_blocks(uint64_t lo, uint64_t hi, int steps, uint64_t rows,
                                        bool include_lo);

}  // namespace pev::measure
