// The store fills a table entry's speed is compared with. Streamed stores are as wide as the CPU's
// widest vectors (Highway, chosen at run time), as the precise fill's are: on a Zen 5 virtual
// machine 128-bit streamed stores wrote 256-byte runs at 0.6 of what 512-bit ones did, and the
// roofline read below the entries it bounds.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peverify/bench/roofline.cc"
#include "peverify/bench/roofline.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace pev::bench::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Non-temporal stores of `bytes` (a multiple of 64) at p (64-byte aligned; vectors are at most
// 64 bytes).
HWY_INLINE void StreamAt(char* p, size_t bytes) {
  const hn::ScalableTag<uint32_t> d;
  const auto v = hn::Set(d, 0x3f800000u);
  const size_t step = hn::Lanes(d) * sizeof(uint32_t);
  for (size_t i = 0; i < bytes; i += step) hn::Stream(v, d, reinterpret_cast<uint32_t*>(p + i));
}

void StreamBytes(char* p, size_t bytes) { StreamAt(p, bytes); }

// The tiled order of `rows` rows: spans of 1024 rows, each written run by run (kStreamingRuns*).
// One dispatch for the whole loop: runs are a few vectors each.
void StreamRuns(char* dst, size_t rows, size_t row_bytes, size_t run) {
  constexpr size_t kSpanRows = 1024;
  for (size_t s = 0; s < rows; s += kSpanRows) {
    const size_t span_end = std::min(s + kSpanRows, rows);
    for (size_t c = 0; c < row_bytes; c += run)
      for (size_t r = s; r < span_end; ++r)
        StreamAt(dst + r * row_bytes + c, std::min(run, row_bytes - c));
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pev::bench {

std::string_view name_of(Fill f) {
  switch (f) {
    case Fill::kMemsetNonZero:
      return "memset-nonzero";
    case Fill::kStreaming:
      return "stream-store";
    case Fill::kPlainLoop:
      return "plain-store";
    case Fill::kMemcpy:
      return "memcpy";
    case Fill::kStreamingRuns128:
      return "stream-store-128B-runs";
    case Fill::kStreamingRuns256:
      return "stream-store-256B-runs";
  }
  return "?";
}

bool is_store_fill(std::string_view name) {
  return std::any_of(std::begin(kStoreFills), std::end(kStoreFills),
                     [&](Fill f) { return name_of(f) == name; });
}

namespace {

HWY_EXPORT(StreamBytes);
HWY_EXPORT(StreamRuns);

void stream(char* p, size_t bytes) { HWY_DYNAMIC_DISPATCH(StreamBytes)(p, bytes); }

void stream_runs(char* dst, size_t bytes, size_t row_bytes, size_t run) {
  const size_t rows = row_bytes == 0 ? 0 : bytes / row_bytes;
  HWY_DYNAMIC_DISPATCH(StreamRuns)(dst, rows, row_bytes, run);
  hwy::FlushStream();
  std::memset(dst + rows * row_bytes, 0x3f, bytes - rows * row_bytes);
}

}  // namespace

void fill(Fill f, void* dst, const void* src, size_t bytes, size_t row_bytes) {
  switch (f) {
    case Fill::kStreamingRuns128:
      return stream_runs(static_cast<char*>(dst), bytes, row_bytes, 128);
    case Fill::kStreamingRuns256:
      return stream_runs(static_cast<char*>(dst), bytes, row_bytes, 256);
    case Fill::kMemsetNonZero:
      std::memset(dst, 0x3f, bytes);
      return;
    case Fill::kStreaming: {
      const size_t blocks = bytes / 64;
      stream(static_cast<char*>(dst), 64 * blocks);
      hwy::FlushStream();
      std::memset(static_cast<char*>(dst) + 64 * blocks, 0x3f, bytes % 64);
      return;
    }
    case Fill::kPlainLoop: {
      float* p = static_cast<float*>(dst);
      std::fill(p, p + bytes / sizeof(float), 1.0f);
      std::memset(static_cast<char*>(dst) + bytes / 4 * 4, 0x3f, bytes % 4);
      return;
    }
    case Fill::kMemcpy:
      std::memcpy(dst, src, bytes);
      return;
  }
}

}  // namespace pev::bench
#endif  // HWY_ONCE
