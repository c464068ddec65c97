// What the hardware allows for writing a table: the best of several store fills of the same
// buffer (a non-zero value: a zero fill is special-cased by some hardware and runs 2-3x faster in
// DRAM, so it is no roofline), and memcpy for reference.
#pragma once

#include <cstddef>
#include <string_view>

namespace pev::bench {

enum class Fill {
  kMemsetNonZero,  // glibc memset with 0x3f: rep stosb or wide stores, the usual best in DRAM
  kStreaming,      // non-temporal 16-byte stores: no read-for-ownership
  kPlainLoop,      // a plain loop of float stores (pays read-for-ownership in DRAM)
  kMemcpy,         // copy from a second buffer of the same size (reported, not a roofline)
  // kStreaming in the precise strategy's tiled order (core/precise/fill_loops-inl.h): rows of
  // the table's width, written one run of 128 (or 256) bytes a row at a time over a span of 1024
  // rows, then the next run. Reported beside the roofline, not part of it: what the order of the
  // stores alone allows.
  kStreamingRuns128,
  kStreamingRuns256,
};
std::string_view name_of(Fill f);
inline constexpr Fill kStoreFills[] = {Fill::kMemsetNonZero, Fill::kStreaming, Fill::kPlainLoop};
inline constexpr Fill kRunFills[] = {Fill::kStreamingRuns128, Fill::kStreamingRuns256};

// Whether the fill of this name is one the roofline is the best of (kStoreFills).
bool is_store_fill(std::string_view name);

// Writes `bytes` at `dst`, 64-byte aligned (a tail short of 64 bytes goes through memset). `src`
// is used by kMemcpy only, `row_bytes` (a multiple of 64) by the run fills.
void fill(Fill f, void* dst, const void* src, size_t bytes, size_t row_bytes = 0);

}  // namespace pev::bench
