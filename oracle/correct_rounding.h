// Ziv's rounding test: given an approximation of an exact real with a proven error bound, return
// the exact value's round-to-nearest-even in the target format, or nothing if the bound is too
// wide to decide it (the caller then raises the working precision).
#pragma once

#include <mpfr.h>

#include <optional>

#include "peverify/encoding/spec.h"

namespace pev::oracle {

// Requires |approx - exact| <= 2^(EXP(approx) - err) and exact != 0; approx must be nonzero.
// Handles the target's subnormals (including underflow to a signed zero) and overflow to an
// infinity (an attention factor can scale values past float16's range). The result is the
// format value widened to double (exact).
std::optional<double> round_if_decided(mpfr_srcptr approx, mpfr_exp_t err, Dtype target);

// An exactly known nonzero value rounded to nearest, ties to even, the same way: for the few
// values the oracle knows exactly (a configured attention factor at position 0).
double round_exact(mpfr_srcptr exact, Dtype target);

}  // namespace pev::oracle
