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

// The honest-implementation budget of DESIGN §2 for one element:
//   output_ulps * ulp_out(exact) + c * u * (|exact| + angle + steps)
// with u the unit roundoff of the claimed compute precision, angle = pos * w_k, steps the
// rotations since the last directly computed row (0 for direct computations), and output_ulps
// 1/2 for a rounding output conversion (the default model).
double model_budget(double exact, double angle, double steps, Dtype output, double c, double u,
                    double output_ulps = 0.5);

// Faithful: strictly less than one ulp of the output type at the exact value. Strict (correctly
// rounded): at most half an ulp, plus the exact value's own rounding to double.
bool is_faithful(const ElementError& e);
bool is_correctly_rounded(const ElementError& e);

}  // namespace pev::oracle
