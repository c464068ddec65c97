// The oracle at given position ids (docs/mathematics.md §1.4): rows in any order, repeated, and
// with M-RoPE each pair at its own stream's position. Runs of consecutive distinct positions go to
// the engine as tiles, so packed sequences and padded batches cost what a plain table does.
#pragma once

#include <cstdint>

#include "peverify/encoding/positions.h"
#include "peverify/encoding/spec.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle {

// Values [i][pair] of rows rows[0 .. n) of `positions` (indices into its streams), each pair at
// the position its stream gives (RowPositions::of_pair): out is resized to n * d/2.
void evaluate_rows(const Engine& engine, const TableSpec& spec, const RowPositions& positions,
                   const uint64_t* rows, uint64_t n, TileValues& out);

// Rows [first, first + n) of `positions`, in the spec's layout, correctly rounded to `dtype` (the
// engine's target) and encoded: what `peverify oracle --positions` stores.
void rounded_encodings_at(const Engine& engine, const TableSpec& spec,
                          const RowPositions& positions, uint64_t first, uint64_t n, Dtype dtype,
                          uint64_t* out, int threads = 0);

}  // namespace pev::oracle
