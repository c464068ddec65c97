// Whole tables from an engine: tiles of positions spread over threads, laid out as the spec's
// layout says.
#pragma once

#include <cstdint>
#include <functional>
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

// Runs body(i) for i in [0, n) on `threads` threads (<= 0: one per hardware thread), handing out
// indices dynamically. The first exception thrown by a body is rethrown after all threads join.
void parallel_for(uint64_t n, int threads, const std::function<void(uint64_t)>& body);

}  // namespace pev::oracle
