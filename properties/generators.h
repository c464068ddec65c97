// RapidCheck generators over the real domain of PE tables (RapidCheck's default generators know
// nothing of it): d even up to 8192, the bases people use, positions by decade up to 2^24 and
// beyond, and pairs at both ends of the frequency range. All shrink towards small cases.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>

#include "peverify/encoding/spec.h"

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

// A rotary recipe of `type` for rotary dimension d with the parameters real models use and
// others around them; sequence_length is the caller's (see sequence_for).
inline rc::Gen<RopeScaling> recipe(RopeType type, int d) {
  return rc::gen::exec([type, d] {
    RopeScaling r;
    r.type = type;
    switch (type) {
      case RopeType::kDefault:
        break;
      case RopeType::kLinear:
        r.factor = *rc::gen::element(2.0, 4.0, 8.0, 16.0, 0.5);
        break;
      case RopeType::kDynamic:
        r.factor = *rc::gen::element(2.0, 4.0, 8.0);
        r.max_position = *rc::gen::element<uint64_t>(2048, 4096, 32768);
        break;
      case RopeType::kYarn:
        r.factor = *rc::gen::element(4.0, 8.0, 16.0, 32.0, 40.0);
        r.original_max_position = *rc::gen::element<uint64_t>(2048, 4096, 32768);
        if (*rc::gen::inRange(0, 3) == 0) {
          r.beta_slow = *rc::gen::inRange(1, 8);
          r.beta_fast = r.beta_slow + *rc::gen::inRange(0, 64);
        }
        if (*rc::gen::inRange(0, 3) == 0) r.mscale = r.mscale_all_dim = 1.0;
        if (*rc::gen::inRange(0, 4) == 0) r.mscale = 0.707;
        if (*rc::gen::inRange(0, 4) == 0) r.truncate = false;
        break;
      case RopeType::kLongRope: {
        r.original_max_position = 4096;
        r.max_position = *rc::gen::element<uint64_t>(4096, 131072);
        double f = 1;
        for (int j = 0; j < d / 2; ++j) {  // increasing with j, as real lists are
          r.short_factor.push_back(f);
          r.long_factor.push_back(f * *rc::gen::element(1.0, 1.5, 2.0));
          f += *rc::gen::element(0.0, 0.01, 0.5, 2.0);
        }
        break;
      }
      case RopeType::kLlama3:
        r.factor = *rc::gen::element(8.0, 32.0, 16.0);
        r.low_freq_factor = 1;
        r.high_freq_factor = *rc::gen::element(4.0, 2.0);
        r.original_max_position = *rc::gen::element<uint64_t>(8192, 4096);
        break;
      case RopeType::kProportional:  // Gemma 4's quarter, and shares around it
        r.partial_rotary_factor = *rc::gen::element(0.25, 0.5, 0.3, 1.0, 0.0);
        r.factor = *rc::gen::element(1.0, 1.0, 8.0);
        break;
    }
    return r;
  });
}

}  // namespace pev::properties::gen
