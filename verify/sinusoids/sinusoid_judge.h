// One element of a sinusoidal table against its exact value under a claim (internal to
// verify/sinusoids): what the pass and the diagnosis both ask.
#pragma once

#include <cmath>
#include <string>

#include "peverify/encoding/claim.h"
#include "peverify/measure/error.h"
#include "peverify/verify/sinusoids/exact_values.h"

namespace pev::verify::sinusoids {

struct Judged {
  bool ok = true;
  double error = 0, allowed = 0;
  const char* what = "number";
};

// Strict and faithful claims by encoding (docs/mathematics.md §3.3), the model by its budget with
// the element's angle; NaN and Inf always fail.
inline Judged judge(double got, const ExactValues::Value& v, const Claim& claim, Dtype dtype) {
  Judged j;
  if (std::isnan(got)) return {false, NAN, 0, "nan"};
  if (std::isinf(got)) return {false, INFINITY, 0, "inf"};
  j.error = std::fabs(got - v.exact);
  j.allowed = claim.allowed(v.exact, v.angle, 0, dtype);
  switch (claim.kind) {
    case Claim::Kind::kStrict:
      j.ok = measure::same_encoding(got, v.rounded);
      break;
    case Claim::Kind::kFaithful:
      j.ok = measure::is_faithful_encoding(got, v.exact, v.rounded, dtype, v.exact_is_true);
      break;
    case Claim::Kind::kModel:
      j.ok = v.exact_is_true && v.exact == 0 ? got == 0 : j.error <= j.allowed;
      break;
  }
  return j;
}

}  // namespace pev::verify::sinusoids
