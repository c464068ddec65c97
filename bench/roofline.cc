#include "peverify/bench/roofline.h"

#include <emmintrin.h>  // SSE2: the x86-64 baseline, so no dispatch is needed

#include <algorithm>
#include <cstring>

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

// Non-temporal stores of `bytes` (a multiple of 64) at p.
void stream(char* p, size_t bytes) {
  const __m128i v = _mm_set1_epi32(0x3f800000);
  auto* q = reinterpret_cast<__m128i*>(p);
  for (size_t i = 0; i < bytes / 16; i += 4) {
    _mm_stream_si128(q + i, v);
    _mm_stream_si128(q + i + 1, v);
    _mm_stream_si128(q + i + 2, v);
    _mm_stream_si128(q + i + 3, v);
  }
}

// The tiled order: spans of 1024 rows, each written run by run (kStreamingRuns*).
void stream_runs(char* dst, size_t bytes, size_t row_bytes, size_t run) {
  constexpr size_t kSpanRows = 1024;
  const size_t rows = row_bytes == 0 ? 0 : bytes / row_bytes;
  for (size_t s = 0; s < rows; s += kSpanRows) {
    const size_t span_end = std::min(s + kSpanRows, rows);
    for (size_t c = 0; c < row_bytes; c += run)
      for (size_t r = s; r < span_end; ++r)
        stream(dst + r * row_bytes + c, std::min(run, row_bytes - c));
  }
  _mm_sfence();
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
      _mm_sfence();
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
