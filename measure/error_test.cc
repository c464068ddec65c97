#include "peverify/measure/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace pev::measure {
namespace {

TEST(ErrorMeasure, UlpIsTakenAtTheExactValueInTheOutputFormat) {
  const double exact = 0.75;  // float32 ulp there is 2^-24
  const ElementError e = error_of(exact + std::ldexp(1.0, -25), exact, Dtype::kFloat32, 0.0);
  EXPECT_EQ(e.category, Category::kNumber);
  EXPECT_EQ(e.abs, std::ldexp(1.0, -25));
  EXPECT_EQ(e.ulp, 0.5);
  EXPECT_EQ(error_of(0.75 + 1.0 / 512, 0.75, Dtype::kBFloat16, 0.0).ulp, 0.5);
}

TEST(ErrorMeasure, TheFlooredUlpStaysFiniteNearZerosOfSin) {
  const double exact = 1e-12, got = 1e-11;  // a tiny exact value computed with an absolute error
  const ElementError e = error_of(got, exact, Dtype::kFloat32, 1.0 / 1024);
  EXPECT_GT(e.ulp, 1e6);
  EXPECT_LT(e.ulp_floored, 1.0);
}

TEST(ErrorMeasure, NaNInfAndSignAreCategories) {
  EXPECT_EQ(error_of(std::nan(""), 0.5, Dtype::kFloat32, 0).category, Category::kNaN);
  EXPECT_EQ(error_of(std::numeric_limits<double>::infinity(), 0.5, Dtype::kFloat16, 0).category,
            Category::kInf);
  EXPECT_EQ(error_of(-0.0, 0.0, Dtype::kFloat32, 0).category, Category::kSignMismatch);
  EXPECT_EQ(error_of(-1e-3, 1e-3, Dtype::kFloat32, 0).category, Category::kSignMismatch);
  // Flushing a tiny value to zero is a (measurable) numeric error, not a sign error.
  EXPECT_EQ(error_of(0.0, 1e-30, Dtype::kFloat32, 0).category, Category::kNumber);
}

}  // namespace
}  // namespace pev::measure
