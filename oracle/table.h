// Whole tables from an engine: tiles of positions spread over threads, laid out as the spec's
// layout says.
#pragma once

#include <cstdint>
#include <vector>

#include "encoding/spec.h"
#include "oracle/engine.h"

namespace pev::oracle {

// Row-major [count][table_width(spec)].
struct ExactTable {
  uint64_t rows = 0;
  int width = 0;
  std::vector<double> rounded;  // correctly rounded to the engine's target format
  std::vector<double> exact;    // correctly rounded to double
};

// Positions spec.start .. spec.start + count - 1. threads <= 0 means one per hardware thread.
ExactTable compute_table(const Engine& engine, const TableSpec& spec, uint64_t count,
                         int threads = 0);

// Just the exact values (correctly rounded to double), row-major in spec's layout: what error
// measures need, whatever the output type. When the environment variable PEV_ORACLE_CACHE names
// a directory, tables are kept there across processes (tests run one process per test, and many
// ask for the same grid); a file is written atomically and read back only if its size matches.
std::vector<double> exact_values(const TableSpec& spec, uint64_t count, int threads = 0);

}  // namespace pev::oracle
