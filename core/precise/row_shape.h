// The two shapes of a row the precise strategy's sinks store (encoding/layout.h's RowShape, from
// the layout table): zipped, whose columns 2k and 2k + 1 a Pairing fills, or runs.
#pragma once

#include "peverify/encoding/layout.h"

namespace pev::core::precise {

// Which values fill columns 2k and 2k + 1 of a zipped row: a template argument of the sinks.
enum class Pairing { kSinCos, kCosSin, kCosCos, kSinSin };

inline Pairing pairing_of(const RowShape& shape) {
  const bool sin_first = shape.zipped_sin[0], sin_second = shape.zipped_sin[1];
  if (sin_first) return sin_second ? Pairing::kSinSin : Pairing::kSinCos;
  return sin_second ? Pairing::kCosSin : Pairing::kCosCos;
}

// The two values a zipped row puts at columns 2k and 2k + 1, given pair k's sin and cos.
template <class T>
inline void zip_pair(Pairing p, const T& s, const T& c, T& first, T& second) {
  first = p == Pairing::kSinCos || p == Pairing::kSinSin ? s : c;
  second = p == Pairing::kCosSin || p == Pairing::kSinSin ? s : c;
}

}  // namespace pev::core::precise
