// Test helpers shared by the SLEEF and Highway tests: the oracle grid the vector entries are
// checked on, exact values computed once per process, and the worst element against a claim.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "peverify/core/generate.h"
#include "peverify/core/implementation.h"
#include "peverify/encoding/spec.h"

namespace pev::core::testutil {

// One block of rows of the grid.
struct Block {
  TableSpec spec;
  uint64_t count = 0;
};

// d in {64, 512}, bases 1e4 and 5e5 (those <= max_base), positions [0, 512), and 16-row blocks
// around 8191, 65535, 2^20 and ending at 2^24, all within [0, max_position].
std::vector<Block> oracle_grid(uint64_t max_position, double max_base);

struct Worst {
  double excess = -1;  // |got - exact| / budget; > 1 breaks the claim (Inf for NaN or Inf)
  uint64_t pos = 0;
  int column = 0;
  double got = 0, exact = 0, budget = 0;
  double max_abs = 0;  // the largest |got - exact| in the block
};

// `got` (any layout, spec.layout) against the exact values and impl's model claim.
Worst worst_against_claim(const Implementation& impl, const TableSpec& spec,
                          const GeneratedTable& got);

// "d=512 base=10000 pos=8191 dim=3 got=0x... exact=0x... budget=0x... (0.24 x)".
std::string describe(const Worst& w, const TableSpec& spec);

// Positions and columns where the two tables' bit patterns differ.
struct Difference {
  uint64_t row = 0;
  int column = 0;
};
std::vector<Difference> bit_differences(const GeneratedTable& a, const GeneratedTable& b);

// Where column `col` of row `row` sits in the interleaved table of width d.
inline uint64_t interleaved_index(uint64_t row, int d, Column col) {
  return row * static_cast<uint64_t>(d) + 2 * static_cast<uint64_t>(col.pair) +
         (col.is_sin ? 0 : 1);
}

// A copy of `impl` with another fill function (to pin an ISA).
Implementation with_fill(const Implementation& impl,
                         void (*fill)(const Implementation&, const TableSpec&, uint64_t, void*));

// "cpu/logspace/f32>bf16/sleef-u10" -> "cpu_logspace_f32_bf16_sleef_u10", for test names.
std::string test_name(const std::string& s);

}  // namespace pev::core::testutil
