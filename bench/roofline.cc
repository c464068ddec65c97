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
  }
  return "?";
}

void fill(Fill f, void* dst, const void* src, size_t bytes) {
  switch (f) {
    case Fill::kMemsetNonZero:
      std::memset(dst, 0x3f, bytes);
      return;
    case Fill::kStreaming: {
      const __m128i v = _mm_set1_epi32(0x3f800000);
      auto* p = static_cast<__m128i*>(dst);
      const size_t blocks = bytes / 64;
      for (size_t i = 0; i < 4 * blocks; i += 4) {
        _mm_stream_si128(p + i, v);
        _mm_stream_si128(p + i + 1, v);
        _mm_stream_si128(p + i + 2, v);
        _mm_stream_si128(p + i + 3, v);
      }
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
