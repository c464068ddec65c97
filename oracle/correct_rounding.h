// Ziv's rounding test: given an approximation of an exact real with a proven error bound, return
// the exact value's round-to-nearest-even in the target format, or nothing if the bound is too
// wide to decide it (the caller then raises the working precision).
#pragma once

#include <mpfr.h>

#include <optional>

#include "encoding/spec.h"

namespace pev::oracle {

// Requires |approx - exact| <= 2^(EXP(approx) - err) and exact != 0; approx must be nonzero.
// Handles the target's subnormals (including underflow to a signed zero). The result is the
// format value widened to double (exact).
std::optional<double> round_if_decided(mpfr_srcptr approx, mpfr_exp_t err, Dtype target);

}  // namespace pev::oracle
