// Where each layout puts a pair's sin and cos in a row, in the two shapes the precise strategy's
// sinks store: zipped (columns 2k and 2k + 1 hold two of pair k's values: interleaved, polar and
// the rotary pair caches) and runs (up to two runs of d/2 sin values and two of cos values:
// halves and the other rotary caches).
#pragma once

#include "peverify/encoding/spec.h"

namespace pev::core::precise {

// Which values fill columns 2k and 2k + 1 of a zipped row.
enum class Pairing { kSinCos, kCosSin, kCosCos, kSinSin };

struct RowShape {
  bool zipped = false;
  Pairing pairing = Pairing::kSinCos;  // zipped rows
  int sin_runs[2] = {-1, -1};          // runs: the first column of each run of sin (-1: none)
  int cos_runs[2] = {-1, -1};
};

inline RowShape row_shape(Layout layout, int half) {
  RowShape s;
  switch (layout) {
    case Layout::kInterleaved:
      s.zipped = true;
      break;
    case Layout::kPolar:
      s.zipped = true, s.pairing = Pairing::kCosSin;
      break;
    case Layout::kRopeCosPairs:
      s.zipped = true, s.pairing = Pairing::kCosCos;
      break;
    case Layout::kRopeSinPairs:
      s.zipped = true, s.pairing = Pairing::kSinSin;
      break;
    case Layout::kHalves:
      s.sin_runs[0] = 0, s.cos_runs[0] = half;
      break;
    case Layout::kRopeCos:
      s.cos_runs[0] = 0;
      break;
    case Layout::kRopeSin:
      s.sin_runs[0] = 0;
      break;
    case Layout::kRopeCosDup:
      s.cos_runs[0] = 0, s.cos_runs[1] = half;
      break;
    case Layout::kRopeSinDup:
      s.sin_runs[0] = 0, s.sin_runs[1] = half;
      break;
    case Layout::kRopeCosSin:
      s.cos_runs[0] = 0, s.sin_runs[0] = half;
      break;
  }
  return s;
}

// The two values a zipped row puts at columns 2k and 2k + 1, given pair k's sin and cos.
template <class T>
inline void zip_pair(Pairing p, const T& s, const T& c, T& first, T& second) {
  first = p == Pairing::kSinCos || p == Pairing::kSinSin ? s : c;
  second = p == Pairing::kCosSin || p == Pairing::kSinSin ? s : c;
}

}  // namespace pev::core::precise
