// What the precise strategy precomputes for one (d, base, schedule, recipe): the double-double
// frequencies, the attention factor and the rotation table sin(j w_k), cos(j w_k) for
// j < kAnchorInterval. Plans are
// cached (powq for every pair and a table of B x d/2 direct evaluations cost as much as
// thousands of rows), and shared read-only between concurrent fills.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "peverify/encoding/spec.h"

namespace pev::core::precise {

// Rows between directly computed anchor rows (positions that are multiples of it). The error of
// a rotated row does not depend on it (one rotation from the anchor, by a tabulated angle); it
// trades anchor cost (1/B of the rows, ~10% of the time at B = 64) against the rotation table's
// chunk width (the table is read chunk by chunk from L1: 32 KiB a chunk). A constant, as
// the tables and loops are sized with it; the value is encoding/claims.json's anchor_interval
// (core/registry_test.cc checks that the two agree).
inline constexpr uint64_t kAnchorInterval = 64;
inline constexpr size_t kTableChunkBytes = size_t{32} << 10;
// Pairs per chunk, for the sinks that read the double table (16 bytes a pair a row: 32 pairs,
// 256 bytes of an interleaved float32 row per store run) and for those that read the float one
// (8 bytes: 64 pairs, 256 bytes of an interleaved 16-bit row). Streamed runs of 256 bytes or
// more write at the store roofline on Zen 3 (AVX2); runs of 128 bytes a row, over the rows of a
// span, reached 0.65 of it (24.6 GB/s where sequential stores made 37.7). Targets with wider
// vectors take wider chunks (kTargetDoubleChunkPairs, rotate-inl.h).
inline constexpr size_t kDoubleChunkPairs = kTableChunkBytes / (16 * kAnchorInterval);
inline constexpr size_t kFloatChunkPairs = kTableChunkBytes / (8 * kAnchorInterval);

struct Plan {
  int pairs = 0;      // d/2
  size_t padded = 0;  // pairs rounded up to the vector length; padding lanes have w = 0
  size_t chunk = 0;   // pairs per table chunk, a multiple of the vector length
  // A, rounded once to double (1 for the plain encoding): anchors and fixed-up values are
  // multiplied by it, so the rows rotated from the anchors carry it too. The fix-up threshold
  // of each output is a power of two times it (precise_fill.h).
  double attention = 1;
  hwy::AlignedFreeUniquePtr<double[]> w_hi, w_lo;  // [padded]
  // sin(j w_k), cos(j w_k) for j < kAnchorInterval, laid out [chunk][j][pair in chunk]: each
  // chunk contiguous.
  hwy::AlignedFreeUniquePtr<double[]> table_sin, table_cos;
  // The same rounded to float, in the same layout (at table_offset): the float-first 16-bit
  // sinks' inputs.
  hwy::AlignedFreeUniquePtr<float[]> table_sin_f, table_cos_f;

  // Where lanes [i0, i0 + chunk) of row j start; i0 is a multiple of `chunk`.
  size_t table_offset(uint64_t j, size_t i0) const {
    return i0 * kAnchorInterval + j * std::min(chunk, padded - i0);
  }
};

// The plan for (spec.d_model, spec.base, spec.schedule, spec.rope) at `lanes` doubles per vector,
// in chunks of `chunk_pairs` (rounded to a multiple of lanes, at least one vector). On a miss
// it fills the frequencies and calls `build_table` for the rotation table. Keeps the few most
// recently used plans. Thread-safe.
class PlanCache {
 public:
  std::shared_ptr<const Plan> get(const TableSpec& spec, size_t lanes, size_t chunk_pairs,
                                  const std::function<void(Plan&)>& build_table);

 private:
  struct Entry {
    int d_model;
    double base;
    Schedule schedule;
    RopeScaling rope;
    size_t lanes, chunk;
    std::shared_ptr<const Plan> plan;
  };
  static constexpr size_t kCapacity = 8;
  std::mutex mutex_;
  std::vector<Entry> entries_;  // most recently used last
};

}  // namespace pev::core::precise
