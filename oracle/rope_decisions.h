// Where a rotary recipe's formula changes branch, decided exactly (docs/mathematics.md §6): yarn's
// floor, ceil and clamps of the correction range and the clamp of each pair's ramp, llama3's band
// of each pair. Double arithmetic can put a pair on the wrong side of an edge; these decisions
// cannot.
//
// Why raising the precision always ends: no threshold is ever met exactly. With b and beta
// rationals (doubles) and L0 an integer, cd(beta) = k for a rational k would need
// L0 / (2 pi beta) = b^(2k/d), an algebraic number, so pi would be algebraic; likewise llama3's
// L0 theta_j / (2 pi) is never a rational edge (theta_j = b^(-2j/d) is algebraic), and
// cd(beta) + 1/1000 is never an integer. pi is transcendental (Lindemann), so each interval below
// shrinks away from its threshold as the precision grows. Comparisons of exact quantities (an
// integer end against a pair index) are exact in MPFR.
#pragma once

#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {

// One end of yarn's ramp: an exact integer (a floor or ceil of cd, or the clamp 0 or d - 1), or
// cd(beta) itself when not truncating; high gets + 1/1000 when the ends are equal.
struct RampEnd {
  bool is_cd = false;
  double beta = 0;       // is_cd: cd(beta)
  MpfrVar integer{128};  // !is_cd: |integer| < 2^100, exact at 128 bits
  bool plus_thousandth = false;
  double magnitude = 0;  // >= |end|
  double error = 0;      // ramp_end_value at P bits is within error 2^-P of the end
};

// r_j = clamp((j - low) / (high - low), 0, 1): 0 keeps theta_j, 1 divides it by s.
enum class Ramp { kZero, kOne, kFraction };

struct YarnRamp {
  RampEnd low, high;
  std::vector<Ramp> ramp;  // per pair
  double width_min = 0;    // 0 < width_min <= |high - low|
};

// Throws std::logic_error if 2^16 bits do not decide (impossible, see above).
YarnRamp decide_yarn_ramp(const TableSpec& spec);

// The end at `precision` (>= 64) bits into `out` (precision set to max(precision, 128), so
// integers stay exact): |out - end| <= end.error 2^-precision.
void ramp_end_value(const TableSpec& spec, const RampEnd& end, mpfr_prec_t precision, mpfr_ptr out);

// llama3: kHigh where wavelength < L0 / h (theta_j unchanged), kLow where wavelength > L0 / l
// (theta_j / s), kMedium in between (the smoothed blend).
enum class Llama3Band { kHigh, kMedium, kLow };
std::vector<Llama3Band> decide_llama3_bands(const TableSpec& spec);

}  // namespace pev::oracle
