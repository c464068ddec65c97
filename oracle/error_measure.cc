#include "oracle/error_measure.h"

#include <cmath>

#include "encoding/format.h"

namespace pev::oracle {

std::string_view name_of(ErrorCategory c) {
  switch (c) {
    case ErrorCategory::kFinite:
      return "finite";
    case ErrorCategory::kNaN:
      return "nan";
    case ErrorCategory::kInf:
      return "inf";
    case ErrorCategory::kSignMismatch:
      return "sign";
  }
  return "?";
}

ElementError measure(double got, double exact, Dtype output, double ulp_floor) {
  ElementError e;
  if (std::isnan(got)) {
    e.category = ErrorCategory::kNaN;
    return e;
  }
  if (std::isinf(got)) {
    e.category = ErrorCategory::kInf;
    return e;
  }
  e.abs = std::fabs(got - exact);
  e.ulp = e.abs / ulp_of(exact, output);
  e.ulp_floored = e.abs / ulp_of(std::fmax(std::fabs(exact), ulp_floor), output);
  // A zero result for a tiny nonzero exact value is a numeric error, not a sign error; otherwise
  // compare sign bits, so that -0 for an exact +0 is caught.
  const bool got_zero_of_nonzero = got == 0.0 && exact != 0.0;
  if (!got_zero_of_nonzero && std::signbit(got) != std::signbit(exact))
    e.category = ErrorCategory::kSignMismatch;
  return e;
}

double model_budget(double exact, double angle, double steps, Dtype output, double c, double u,
                    double output_ulps) {
  return output_ulps * ulp_of(exact, output) +
         c * u * (std::fabs(exact) + std::fabs(angle) + steps);
}

bool is_faithful(const ElementError& e) {
  return e.category == ErrorCategory::kFinite && e.ulp < 1;
}

bool is_correctly_rounded(const ElementError& e) {
  return e.category == ErrorCategory::kFinite && e.ulp <= 0.5 + 0x1p-28;
}

}  // namespace pev::oracle
