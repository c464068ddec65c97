// An independent referee for the oracle, for tests only: the same exact values (docs/mathematics.md
// §1) computed with Arb's ball arithmetic and rounded with Arb's arf rounding. Nothing here shares
// code with the MPFR engine: not its frequencies, not its error bound, not its rounding test
// (oracle/correct_rounding.cc), so an agreement between the two means something.
//
// Method: w_k = b^(num/den) with the exponent an exact rational (arb_pow_fmpq), or the recipe's
// frequency and attention factor A from Hugging Face's formulas in balls (arb_recipe.h), the angle
// pos * w_k with pos an exact integer, sin and cos by arb_sin_cos, times A; the precision doubles
// until every branch of the recipe is decided and both ends of each ball round to the same format
// value. Rounding to nearest is monotone, so the exact value, which lies in the ball, rounds to it
// too. A value that is exactly a tie (a configured attention factor at position 0) has a ball of
// radius 0, which the endpoint rounding rounds to even; values of positions > 0 are never ties.
#pragma once

#include <cstdint>

#include "peverify/encoding/spec.h"

namespace pev::oracle {

// A sin and A cos of a(pos, pair) (A = 1 without a recipe), each rounded once (nearest, ties to
// even, with subnormals and signed zeros) to the target format and, separately, to float64.
struct ArbReference {
  uint64_t sin_bits = 0, cos_bits = 0;  // target-format encodings (pev::encode_exact)
  double sin_value = 0, cos_value = 0;  // the same values widened to double
  double sin_f64 = 0, cos_f64 = 0;      // the exact values rounded to float64
  long precision = 0;                   // the Arb working precision that decided them
};

// Throws std::runtime_error if 2^16 bits do not decide (never seen for positions <= 2^53).
ArbReference arb_reference(const TableSpec& spec, uint64_t pos, int pair, Dtype target);

// Convenience forms of arb_reference for one function.
uint64_t arb_reference_bits(const TableSpec& spec, uint64_t pos, int pair, bool is_sin,
                            Dtype target);
// The exact value rounded to float64.
double arb_reference_value(const TableSpec& spec, uint64_t pos, int pair, bool is_sin);

// The rotation's element x C - y S (C = A cos a, S = A sin a at (pos, pair); oracle/rotation.h) in
// balls from the same formulas, rounded once to float64 and to the target; x = y = 0 gives +0.
struct ArbRotated {
  double exact = 0, rounded = 0;
  long precision = 0;
};
ArbRotated arb_rotation(const TableSpec& spec, uint64_t pos, int pair, double x, double y,
                        Dtype target);

}  // namespace pev::oracle
