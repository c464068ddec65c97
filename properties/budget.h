// The accuracy an implementation under test is held to (DESIGN §2): the honest-implementation
// model, faithful (< 1 ulp) or strict (correctly rounded).
#pragma once

#include <string>

#include "encoding/spec.h"

namespace pev::properties {

struct Budget {
  enum class Kind { kModel, kFaithful, kStrict } kind = Kind::kModel;
  // For kModel: ulp_out(exact) * output_ulps + c * u * (|exact| + a(pos,k) + steps).
  double c = kDefaultC;
  double u = 0x1p-24;  // unit roundoff of the precision the implementation claims to compute in
  double output_ulps = 0.5;

  // C of the default model, derived from the error analysis of the pow and logspace strategies
  // in the compute precision u (see core/glibc/glibc_strategies.cc): rounding the exponent or
  // -ln b / d costs u, amplified by exp/pow by |x| <= ln b (13.9 for b = 10^6) on each side of
  // the product, the product or quotient with pos adds u, and sin/cos at most 2u |exact|:
  // 2 ln(10^6) + 4 < 32. Tables computed the seeds' ways in float32 pass; an error of 1e-4 on a
  // low-frequency element (|exact| ~ 1, a ~ 1e-2) exceeds 32 * 2^-24 * 1.01 ~ 1.9e-6 and fails.
  static constexpr double kDefaultC = 32;

  static Budget model(Dtype compute, double c = kDefaultC, double output_ulps = 0.5);
  static Budget faithful();
  static Budget strict();

  // The largest error allowed for one element.
  double allowed(double exact, double angle, double steps, Dtype output) const;
  std::string describe() const;  // "model(C=32, u=2^-24)", "faithful", "strict"
};

// Unit roundoff of a precision: 2^-53, 2^-24, 2^-11, 2^-8.
double unit_roundoff_of(Dtype t);

}  // namespace pev::properties
