// A table from one registry entry, held with its storage type: what tests, reports and
// `peverify generate` all need.
#pragma once

#include <cstdint>
#include <vector>

#include "peverify/core/implementation.h"
#include "peverify/encoding/positions.h"

namespace pev::core {

struct GeneratedTable {
  Dtype output = Dtype::kFloat32;
  uint64_t rows = 0;
  int width = 0;
  std::vector<uint16_t> halves;  // float16 / bfloat16 bit patterns
  std::vector<float> floats;     // float32 values

  double value(uint64_t i) const;      // element i (row-major), widened to double
  std::vector<double> values() const;  // every element, widened to double (one loop per type)
  uint64_t bits(uint64_t i) const;     // element i's bit pattern in `output`
  size_t size() const { return rows * static_cast<size_t>(width); }
};

// Fills `out` (count rows of table_width(spec) elements of impl.output: float, or uint16 bit
// patterns) with `threads` threads (<= 0: one per core), each a contiguous share of the rows, so
// a recurrence pays for its prefix once per thread, not once per block.
void fill_rows(const Implementation& impl, const TableSpec& spec, uint64_t count, void* out,
               int threads = 1);

// Positions spec.start .. spec.start + count - 1. The caller validates the spec. With threads
// != 1 the rows are split into blocks filled concurrently (<= 0: one thread per core); an
// entry's values never depend on the split.
GeneratedTable generate(const Implementation& impl, const TableSpec& spec, uint64_t count,
                        int threads = 1);

// Rows at given position ids (docs/mathematics.md §1.4), in their order: each run of consecutive
// distinct ids is one call of the entry, and with M-RoPE each column comes from its pair's stream.
// What the entry computes when a framework asks it for those positions.
GeneratedTable generate_at(const Implementation& impl, const TableSpec& spec,
                           const RowPositions& ids, int threads = 1);

}  // namespace pev::core
