#include "oracle/error_measure.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace pev::oracle {
namespace {

TEST(ErrorMeasure, UlpIsTakenAtTheExactValueInTheOutputFormat) {
  const double exact = 0.75;  // float32 ulp there is 2^-24
  const ElementError e = measure(exact + std::ldexp(1.0, -25), exact, Dtype::kFloat32, 0.0);
  EXPECT_EQ(e.category, ErrorCategory::kFinite);
  EXPECT_EQ(e.abs, std::ldexp(1.0, -25));
  EXPECT_EQ(e.ulp, 0.5);
  EXPECT_EQ(measure(0.75 + 1.0 / 512, 0.75, Dtype::kBFloat16, 0.0).ulp, 0.5);
}

TEST(ErrorMeasure, TheFlooredUlpStaysFiniteNearZerosOfSin) {
  const double exact = 1e-12, got = 1e-11;  // a tiny exact value computed with an absolute error
  const ElementError e = measure(got, exact, Dtype::kFloat32, 1.0 / 1024);
  EXPECT_GT(e.ulp, 1e6);
  EXPECT_LT(e.ulp_floored, 1.0);
}

TEST(ErrorMeasure, NaNInfAndSignAreCategories) {
  EXPECT_EQ(measure(std::nan(""), 0.5, Dtype::kFloat32, 0).category, ErrorCategory::kNaN);
  EXPECT_EQ(measure(std::numeric_limits<double>::infinity(), 0.5, Dtype::kFloat16, 0).category,
            ErrorCategory::kInf);
  EXPECT_EQ(measure(-0.0, 0.0, Dtype::kFloat32, 0).category, ErrorCategory::kSignMismatch);
  EXPECT_EQ(measure(-1e-3, 1e-3, Dtype::kFloat32, 0).category, ErrorCategory::kSignMismatch);
  // Flushing a tiny value to zero is a (measurable) numeric error, not a sign error.
  EXPECT_EQ(measure(0.0, 1e-30, Dtype::kFloat32, 0).category, ErrorCategory::kFinite);
}

}  // namespace
}  // namespace pev::oracle
