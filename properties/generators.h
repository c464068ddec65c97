// RapidCheck generators over the real domain of PE tables (RapidCheck's default generators know
// nothing of it): d even up to 8192, the bases people use, positions by decade up to 2^24 and
// beyond, and pairs at both ends of the frequency range. All shrink towards small cases.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>

namespace pev::properties::gen {

inline rc::Gen<int> d_model() {
  return rc::gen::weightedOneOf<int>(
      {{3, rc::gen::element(2, 4, 8, 64, 128, 256, 512, 768, 1024, 4096, 8192)},
       {1, rc::gen::map(rc::gen::inRange(1, 4097), [](int h) { return 2 * h; })}});
}

inline rc::Gen<double> base() { return rc::gen::element(1e4, 5e5, 1e6, 500.0, 10.0); }

// Positions in [0, max]: small ones, every decade, just around powers of two, anywhere.
inline rc::Gen<uint64_t> position(uint64_t max) {
  const auto capped = [max](uint64_t p) { return std::min(p, max); };
  return rc::gen::weightedOneOf<uint64_t>(
      {{2, rc::gen::map(rc::gen::inRange<uint64_t>(0, 64), capped)},
       {3, rc::gen::map(rc::gen::inRange(0, 25),
                        [capped](int e) { return capped((uint64_t{1} << e) * 7 / 5); })},
       {2, rc::gen::map(rc::gen::pair(rc::gen::inRange(1, 54), rc::gen::inRange(-2, 3)),
                        [capped](std::pair<int, int> p) {
                          return capped(static_cast<uint64_t>(
                              static_cast<int64_t>(uint64_t{1} << p.first) + p.second));
                        })},
       {3, rc::gen::inRange<uint64_t>(0, max == UINT64_MAX ? max : max + 1)}});
}

// A pair index in [0, pairs): the highest frequencies, the lowest, or anywhere.
inline rc::Gen<int> pair(int pairs) {
  return rc::gen::oneOf(rc::gen::inRange(0, std::min(pairs, 4)),
                        rc::gen::inRange(std::max(0, pairs - 4), pairs),
                        rc::gen::inRange(0, pairs));
}

}  // namespace pev::properties::gen
