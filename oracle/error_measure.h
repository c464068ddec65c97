// How far a computed value is from the exact one (DESIGN §3.2). The exact value is the oracle's
// correct rounding to double: for float32/16/bf16 outputs its own error (2^-53 relative) is far
// below what these measures resolve.
#pragma once

#include <string_view>

#include "encoding/spec.h"

namespace pev::oracle {

// NaN, Inf and wrong signs are categories, not numbers: a NaN has no "ulp error".
enum class ErrorCategory {
  kFinite,        // a number with measurable error
  kNaN,           // got NaN
  kInf,           // got +-Inf (every exact PE value is in [-1, 1])
  kSignMismatch,  // the encodings' signs differ (+0 versus -0 counts)
};
std::string_view name_of(ErrorCategory c);

struct ElementError {
  ErrorCategory category = ErrorCategory::kFinite;
  double abs = 0;          // |got - exact|
  double ulp = 0;          // |got - exact| / ulp_out(exact), ulp clamped at the smallest subnormal
  double ulp_floored = 0;  // the same with ulp_out(max(|exact|, floor))
};

// `got` is the value as stored in `output` (widened to double). `ulp_floor` keeps the floored
// measure finite near the zeros of sin and cos (plain ulp error explodes there).
ElementError measure(double got, double exact, Dtype output, double ulp_floor);

}  // namespace pev::oracle
