// The check of a block every element of which is expected to be its correctly rounded value (a
// strict or faithful claim on a good table, the common case): whether each is, bit for bit, and
// the largest |got - exact| among them, in one vectorised pass (Highway, dispatched per SIMD
// target). Where it answers no, the caller judges element by element.
#pragma once

#include <cstddef>

namespace pev::measure {

struct RoundedScan {
  bool all_rounded = true;  // every got[i] has rounded[i]'s bits
  double max_abs = 0;       // max |got[i] - exact[i]|: meaningful where all_rounded, and
                            // infinite where an infinite got is its rounded value (an overflow)
};

// Folds n elements into `scan` (its max_abs is the running maximum).
void scan_rounded(const double* got, const double* rounded, const double* exact, size_t n,
                  RoundedScan& scan);

}  // namespace pev::measure
