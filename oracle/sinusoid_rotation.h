// The exact rotation of RoPE over several position axes at real ids (docs/features.md §16.2): for a
// pair of input values (u, v) and the angle a = scale x w of its axis's position x,
//   u C - v S  and  v C + u S,   C = cos a, S = sin a,
// each rounded once to float64 and to the target format. A fast path evaluates the sum in
// double-double from C and S in double-double (computed once per angle by MPFR) with a proven
// bound, and hands the elements it cannot decide to an MPFR precision ladder; both give the same
// bits (oracle/sinusoid_rotation_test.cc).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "peverify/encoding/sinusoids/table.h"
#include "peverify/encoding/spec.h"
#include "peverify/oracle/sinusoid.h"

namespace pev::oracle {

class SinusoidRotation {
 public:
  SinusoidRotation(const SinusoidTable& table, Dtype target);

  // cos and sin of one angle, each within 2^-105.9 of the exact value as hi + lo.
  struct Angle {
    double x = 0;
    int frequency = 0;
    bool zero = true;  // the angle is exactly 0: C = 1, S = 0
    double c_hi = 1, c_lo = 0, s_hi = 0, s_lo = 0;
  };
  Angle angle(double x, int frequency) const;

  struct Rotated {
    double exact = 0;    // rounded once to float64
    double rounded = 0;  // rounded once to the target, widened to double
  };
  // u C + sign v S (sign -1 for the first of a pair, +1 for the second); u = v = 0 gives +0.
  // Safe to call concurrently.
  Rotated combine(const Angle& a, double u, double v, int sign) const;
  // The same by MPFR alone, for tests.
  Rotated combine_mpfr(const Angle& a, double u, double v, int sign) const;

  uint64_t handed_off() const { return handed_off_.load(std::memory_order_relaxed); }

 private:
  SinusoidOracle oracle_;
  Dtype target_;
  double scale_;
  std::vector<double> w_;  // each frequency in double: the angle's magnitude
  mutable std::atomic<uint64_t> handed_off_{0};
};

}  // namespace pev::oracle
