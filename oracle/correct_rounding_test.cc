#include "peverify/oracle/correct_rounding.h"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "peverify/encoding/format.h"

namespace pev::oracle {
namespace {

// An MPFR copy of a double, exact at 64 bits.
struct Exact {
  mpfr_t v;
  explicit Exact(double x) {
    mpfr_init2(v, 64);
    mpfr_set_d(v, x, MPFR_RNDN);
  }
  ~Exact() { mpfr_clear(v); }
};

// A bound so tight that only an exact breakpoint stays undecided.
constexpr mpfr_exp_t kTight = 62;

// Rounding a binary64 to binary32 in hardware is correctly rounded (RNE, subnormals): an
// independent referee for the MPFR path on exact inputs.
TEST(CorrectRounding, AgreesWithHardwareDoubleToFloatOnRandomDoubles) {
  std::mt19937_64 rng(20261122);
  std::uniform_int_distribution<int> exponent(-160, 1);
  int decided = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x =
        std::ldexp(std::uniform_real_distribution<double>(0.5, 1.0)(rng), exponent(rng)) *
        (rng() & 1 ? -1 : 1);
    Exact e(x);
    const auto r = round_if_decided(e.v, kTight, Dtype::kFloat32);
    if (!r) continue;  // only exact float midpoints, vanishingly rare here
    ++decided;
    ASSERT_EQ(std::bit_cast<uint64_t>(*r), std::bit_cast<uint64_t>(double{static_cast<float>(x)}))
        << std::hexfloat << x;
  }
  EXPECT_GT(decided, 199990);
}

// GCC's _Float16 conversion from double goes through libgcc's correctly rounded __truncdfhf2.
TEST(CorrectRounding, AgreesWithFloat16ConversionOnRandomDoubles) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> exponent(-28, 1);
  for (int i = 0; i < 200000; ++i) {
    const double x =
        std::ldexp(std::uniform_real_distribution<double>(0.5, 1.0)(rng), exponent(rng)) *
        (rng() & 1 ? -1 : 1);
    Exact e(x);
    const auto r = round_if_decided(e.v, kTight, Dtype::kFloat16);
    ASSERT_TRUE(r) << std::hexfloat << x;
    const _Float16 h = static_cast<_Float16>(x);
    ASSERT_EQ(std::bit_cast<uint64_t>(*r), std::bit_cast<uint64_t>(static_cast<double>(h)))
        << std::hexfloat << x;
  }
}

// For inputs that are floats, RNE to bfloat16 is the integer trick on the float's bits.
TEST(CorrectRounding, AgreesWithIntegerRoundingOfFloatBitsToBFloat16) {
  std::mt19937 rng(11);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint32_t bits = rng() & 0x7fffffffu;
    const float f = std::bit_cast<float>(bits);
    // Skip ties and values bfloat16 holds exactly: neither is ever an exact sin or cos.
    if (!std::isfinite(f) || (bits & 0xffff) == 0x8000 || (bits & 0xffff) == 0) continue;
    if (f >= 0x1.fep127f) continue;  // would round to Inf
    Exact e(f);
    const auto r = round_if_decided(e.v, kTight, Dtype::kBFloat16);
    ASSERT_TRUE(r) << std::hexfloat << f;
    const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    ASSERT_EQ(encode_exact(*r, Dtype::kBFloat16), rounded) << std::hexfloat << f;
    ++checked;
  }
  // About 1 pattern in 256 is Inf or NaN (or rounds to Inf), 1 in 32768 a tie or exact.
  EXPECT_GT(checked, 198000) << "of 200000 random patterns";
}

TEST(CorrectRounding, AnIntervalAroundAMidpointIsUndecidedUntilTheBoundShrinks) {
  // 1 + 2^-24 is the float32 midpoint between 1 and 1 + 2^-23.
  mpfr_t y;
  mpfr_init2(y, 128);
  mpfr_set_d(y, 1.0 + std::ldexp(1.0, -24), MPFR_RNDN);
  mpfr_add_d(y, y, std::ldexp(1.0, -60), MPFR_RNDN);       // just above the midpoint
  EXPECT_FALSE(round_if_decided(y, 40, Dtype::kFloat32));  // +-2^-39 straddles it
  const auto r = round_if_decided(y, 70, Dtype::kFloat32);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, 1.0 + std::ldexp(1.0, -23));
  mpfr_clear(y);
}

TEST(CorrectRounding, BelowTheSmallestSubnormalRoundsToSignedZeroOrToIt) {
  const double tiny = std::ldexp(1.0, -24);  // float16's smallest subnormal
  for (const double x : {0.4 * tiny, -0.4 * tiny, 0.6 * tiny, -0.6 * tiny, 0.01 * tiny}) {
    Exact e(x);
    const auto r = round_if_decided(e.v, kTight, Dtype::kFloat16);
    ASSERT_TRUE(r) << x;
    const double want = std::fabs(x) > 0.5 * tiny ? std::copysign(tiny, x) : std::copysign(0.0, x);
    EXPECT_EQ(std::bit_cast<uint64_t>(*r), std::bit_cast<uint64_t>(want)) << x;
  }
  Exact half(0.5 * tiny);  // an exact tie is never decided
  EXPECT_FALSE(round_if_decided(half.v, kTight, Dtype::kFloat16));
}

}  // namespace
}  // namespace pev::oracle
