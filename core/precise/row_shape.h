// The two shapes of a row the precise strategy's sinks store (encoding/layout.h's RowShape, from
// the layout table): zipped, whose columns 2k and 2k + 1 a Pairing fills, or runs.
#pragma once

#include <cstddef>
#include <cstdlib>

#include "peverify/encoding/layout.h"

namespace pev::core::precise {

// Which values fill columns 2k and 2k + 1 of a zipped row: a template argument of the sinks.
enum class Pairing { kSinCos, kCosSin, kCosCos, kSinSin };

inline Pairing pairing_of(const RowShape& shape) {
  const bool sin_first = shape.zipped_sin[0], sin_second = shape.zipped_sin[1];
  if (sin_first) return sin_second ? Pairing::kSinSin : Pairing::kSinCos;
  return sin_second ? Pairing::kCosSin : Pairing::kCosCos;
}

// Whether two of a row's runs start a multiple of 4 KiB apart (values of element_bytes): the
// sinks then write a block's rows one run at a time, as stores to two such runs in turn ran at
// 0.11-0.15 of the store roofline on AMD EPYC (halves at d = 4096 in 16 bits, d = 2048 in
// float32; 0.36 and 0.40 at half those widths).
inline bool runs_apart_4k(const RowShape& shape, size_t element_bytes) {
  const int offsets[4] = {shape.sin_runs[0], shape.sin_runs[1], shape.cos_runs[0],
                          shape.cos_runs[1]};
  for (int x = 0; x < 4; ++x)
    for (int y = x + 1; y < 4; ++y)
      if (offsets[x] >= 0 && offsets[y] >= 0 &&
          static_cast<size_t>(std::abs(offsets[y] - offsets[x])) * element_bytes % 4096 == 0)
        return true;
  return false;
}

// The two values a zipped row puts at columns 2k and 2k + 1, given pair k's sin and cos.
template <class T>
inline void zip_pair(Pairing p, const T& s, const T& c, T& first, T& second) {
  first = p == Pairing::kSinCos || p == Pairing::kSinSin ? s : c;
  second = p == Pairing::kCosSin || p == Pairing::kSinSin ? s : c;
}

}  // namespace pev::core::precise
