#include "peverify/encoding/format.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

namespace pev {
namespace {

// Every float16 and bfloat16 pattern decodes and re-encodes to itself (NaNs to a NaN).
TEST(Format, EveryHalfAndBFloat16PatternRoundTrips) {
  for (Dtype t : {Dtype::kFloat16, Dtype::kBFloat16}) {
    int numbers = 0;
    for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
      const double v = decode(bits, t);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(decode(encode_exact(v, t), t)));
        continue;
      }
      ASSERT_EQ(encode_exact(v, t), bits) << name_of(t) << " " << std::hex << bits;
      ++numbers;
    }
    // Every pattern but the NaNs (all-ones exponent, nonzero mantissa, either sign) is a number.
    EXPECT_EQ(numbers, t == Dtype::kFloat16 ? 65536 - 2 * 1023 : 65536 - 2 * 127) << name_of(t);
  }
}

TEST(Format, BFloat16IsTheTopHalfOfFloat32) {
  for (uint32_t bits = 0; bits <= 0xffff; bits += 7) {
    const float f = std::bit_cast<float>(bits << 16);
    if (std::isnan(f)) continue;
    EXPECT_EQ(decode(bits, Dtype::kBFloat16), static_cast<double>(f));
  }
}

TEST(Format, KnownHalfEncodings) {
  EXPECT_EQ(encode_exact(1.0, Dtype::kFloat16), 0x3c00u);
  EXPECT_EQ(encode_exact(-2.0, Dtype::kFloat16), 0xc000u);
  EXPECT_EQ(encode_exact(65504.0, Dtype::kFloat16), 0x7bffu);
  EXPECT_EQ(encode_exact(std::ldexp(1.0, -24), Dtype::kFloat16), 0x0001u);  // smallest subnormal
  EXPECT_EQ(encode_exact(std::ldexp(1.0, -14), Dtype::kFloat16), 0x0400u);  // smallest normal
  EXPECT_EQ(encode_exact(-0.0, Dtype::kFloat16), 0x8000u);
  EXPECT_EQ(encode_exact(1.0, Dtype::kBFloat16), 0x3f80u);
}

TEST(Format, UlpBottomsOutAtTheSmallestSubnormal) {
  EXPECT_EQ(ulp_of(1.0, Dtype::kFloat32), std::ldexp(1.0, -23));
  EXPECT_EQ(ulp_of(0.75, Dtype::kFloat32), std::ldexp(1.0, -24));
  EXPECT_EQ(ulp_of(0.75, Dtype::kFloat16), std::ldexp(1.0, -11));
  EXPECT_EQ(ulp_of(0.75, Dtype::kBFloat16), std::ldexp(1.0, -8));
  EXPECT_EQ(ulp_of(1e-30, Dtype::kFloat16), std::ldexp(1.0, -24));
  EXPECT_EQ(ulp_of(0.0, Dtype::kFloat32), std::ldexp(1.0, -149));
  EXPECT_EQ(ulp_of(-0.75, Dtype::kFloat64), std::ldexp(1.0, -53));
}

}  // namespace
}  // namespace pev
