// double -> float16 / bfloat16 rows on every compiled SIMD target (the target is in the test
// name), against the oracle's rounding: a dense set of doubles around every 16-bit value and
// midpoint (where rounding to odd, then to nearest, must equal one rounding), and random doubles
// over each format's range. convert_exhaustive_test adds every float, widened.
#include <fenv.h>
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "peverify/core/convert.h"
#include "peverify/crosscheck/convert_testutil.h"
#include "peverify/encoding/format.h"

namespace pev::core {
namespace {

using testutil::describe;
using testutil::is_quiet_nan;
using testutil::OracleRounding;

// Around each point p (a 16-bit value or midpoint, or the overflow threshold), both signs: p, its
// neighbouring doubles, the floats either side of it, the float midpoints either side (ties of a
// rounding to nearest float: the double-rounding trap) and their neighbouring doubles, and p
// moved by 2^-30 of itself (between p and the next float).
void add_around(double p, std::vector<double>& s) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto f = static_cast<float>(p);  // exact: 16-bit values and midpoints are floats
  const double f_up = std::nextafter(f, std::numeric_limits<float>::infinity());
  const double f_down = std::nextafter(f, 0.0f);
  std::vector<double> near = {p, p + p * 0x1p-30, p - p * 0x1p-30, f_up, f_down};
  for (const double mid : {(p + f_up) / 2, (p + f_down) / 2}) {
    near.push_back(mid);
    near.push_back(std::nextafter(mid, inf));
    near.push_back(std::nextafter(mid, -inf));
  }
  double up = p, down = p;
  for (int k = 0; k < 2; ++k) {
    up = std::nextafter(up, inf);
    down = std::nextafter(down, -inf);
    near.push_back(up);
    near.push_back(down);
  }
  for (const double x : near) {
    s.push_back(x);
    s.push_back(-x);
  }
}

std::vector<double> double_sample(Dtype format) {
  std::vector<double> s;
  const uint16_t largest = format == Dtype::kFloat16 ? 0x7bff : 0x7f7f;
  for (uint16_t h = 0; h <= largest; ++h) {
    const double value = decode(h, format);
    const double next = h == largest ? 2 * value - decode(h - 1, format) : decode(h + 1, format);
    add_around(value, s);
    add_around((value + next) / 2, s);  // for the largest: the overflow threshold
  }
  // Random doubles over the whole range of the format and below it.
  std::mt19937_64 rng(format == Dtype::kFloat16 ? 16 : 32);
  const int lo = format == Dtype::kFloat16 ? -27 : -136, hi = format == Dtype::kFloat16 ? 17 : 129;
  std::uniform_int_distribution<int> exponent(lo, hi);
  std::uniform_real_distribution<double> significand(1.0, 2.0);
  for (int i = 0; i < 300000; ++i)
    s.push_back(std::ldexp(significand(rng), exponent(rng)) * (rng() & 1 ? -1 : 1));
  const double inf = std::numeric_limits<double>::infinity();
  for (const double x : {inf, -inf, std::numeric_limits<double>::max(), 0x1p-1074, 0x1p-1022,
                         0x1p-126, 0x1p-127, 0x1p128, 0x1.fffffffffffffp127}) {
    s.push_back(x);
    s.push_back(-x);
  }
  return s;
}

struct Reference {
  std::vector<double> inputs;
  std::vector<uint16_t> expected;
};

// The sample and the oracle's verdict on it, once per process and format.
const Reference& reference(Dtype format) {
  static Reference cache[2];
  Reference& r = cache[format == Dtype::kFloat16 ? 0 : 1];
  if (r.inputs.empty()) {
    r.inputs = double_sample(format);
    r.expected.resize(r.inputs.size());
    testutil::parallel_for(r.inputs.size(), [&](size_t begin, size_t end) {
      OracleRounding oracle;
      for (size_t i = begin; i < end; ++i) r.expected[i] = oracle.expected(r.inputs[i], format);
    });
  }
  return r;
}

std::vector<uint16_t> convert(const std::vector<double>& in, Dtype format) {
  std::vector<uint16_t> out(in.size());
  convert_row(in.data(), in.size(), format, Conversion::kNearestEven, out.data());
  return out;
}

uint16_t via_float(double x, Dtype format) {
  const auto f = static_cast<float>(x);
  return format == Dtype::kFloat16 ? f16_from_f32(f) : bf16_from_f32(f);
}

class ConvertRowF64 : public hwy::TestWithParamTarget {
 protected:
  void expect_matches_oracle(Dtype format) {
    const Reference& r = reference(format);
    const std::vector<uint16_t> got = convert(r.inputs, format);
    size_t wrong = 0, traps = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      traps += via_float(r.inputs[i], format) != r.expected[i];
      if (got[i] == r.expected[i]) continue;
      if (++wrong <= 10) {
        ADD_FAILURE() << describe(r.inputs[i]) << ": got 0x" << std::hex << got[i] << ", oracle 0x"
                      << r.expected[i];
      }
    }
    EXPECT_EQ(wrong, 0u) << "of " << got.size() << " doubles on " << convert_target();
    // The sample must hold many doubles that rounding to nearest float first gets wrong.
    EXPECT_GT(traps, 100000u);
  }
};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(ConvertRowF64);

TEST_P(ConvertRowF64, DispatchesToTheTargetUnderTest) {
  EXPECT_EQ(convert_target(), hwy::TargetName(GetParam()));
}

TEST_P(ConvertRowF64, Float16MatchesOracleAroundEveryMidpoint) {
  expect_matches_oracle(Dtype::kFloat16);
}

TEST_P(ConvertRowF64, BFloat16MatchesOracleAroundEveryMidpoint) {
  expect_matches_oracle(Dtype::kBFloat16);
}

// The scalar functions are rows of one element (the tail path): the same bits as the vectors.
TEST_P(ConvertRowF64, ScalarFunctionsEqualTheRow) {
  for (const Dtype format : {Dtype::kFloat16, Dtype::kBFloat16}) {
    const Reference& r = reference(format);
    const std::vector<uint16_t> row = convert(r.inputs, format);
    for (size_t i = 0; i < row.size(); ++i) {
      const double x = r.inputs[i];
      ASSERT_EQ(format == Dtype::kFloat16 ? f16_from_f64(x) : bf16_from_f64(x), row[i])
          << describe(x) << " to " << name_of(format);
    }
  }
}

// Rounding to odd is integer work and the conversions that follow are exact or ignore MXCSR:
// rounding toward zero, flushing subnormal results and treating subnormal inputs as zero change
// nothing.
TEST_P(ConvertRowF64, RoundingModeAndFlushToZeroChangeNothing) {
  for (const Dtype format : {Dtype::kFloat16, Dtype::kBFloat16}) {
    const Reference& r = reference(format);
    const unsigned csr = _mm_getcsr();
    ASSERT_EQ(fesetround(FE_TOWARDZERO), 0);
    _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ and DAZ
    const std::vector<uint16_t> got = convert(r.inputs, format);
    _mm_setcsr(csr);
    ASSERT_EQ(fesetround(FE_TONEAREST), 0);
    size_t wrong = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      // DAZ reads subnormal doubles as zero, and those round to zero anyway, with their sign.
      if (got[i] != r.expected[i] && ++wrong <= 10) {
        ADD_FAILURE() << describe(r.inputs[i]) << ": got 0x" << std::hex << got[i] << ", oracle 0x"
                      << r.expected[i];
      }
    }
    EXPECT_EQ(wrong, 0u) << name_of(format);
  }
}

TEST_P(ConvertRowF64, NaNStaysAQuietNaNWithItsSign) {
  for (const uint64_t payload : {uint64_t{1}, uint64_t{1} << 28, uint64_t{1} << 29,
                                 uint64_t{1} << 51, (uint64_t{1} << 52) - 1}) {
    for (const uint64_t sign : {uint64_t{0}, uint64_t{1} << 63}) {
      const double x = std::bit_cast<double>(sign | 0x7ff0000000000000u | payload);
      const uint16_t h = f16_from_f64(x), b = bf16_from_f64(x);
      EXPECT_TRUE(is_quiet_nan(h, Dtype::kFloat16)) << describe(x) << std::hex << " -> 0x" << h;
      EXPECT_TRUE(is_quiet_nan(b, Dtype::kBFloat16)) << describe(x) << std::hex << " -> 0x" << b;
      EXPECT_EQ(h >> 15, sign >> 63);
      EXPECT_EQ(b >> 15, sign >> 63);
    }
  }
}

// Rows of any length and alignment give the same bits as element-by-element conversion, and
// write nothing past their end.
TEST_P(ConvertRowF64, EveryLengthAndOffsetEqualsTheScalarFunctions) {
  std::mt19937_64 rng(20240612);
  std::vector<double> in(64);
  for (double& x : in) x = std::ldexp(static_cast<double>(rng() >> 11), -53 - int(rng() % 140));
  in[5] = 0x1.ffep15 + 0x1p-20;  // just above float16's overflow threshold
  in[9] = -0x1p-130;             // a bfloat16 subnormal
  for (const Dtype format : {Dtype::kFloat16, Dtype::kBFloat16}) {
    for (size_t offset = 0; offset < 3; ++offset) {
      for (size_t n = 0; n + offset <= 40; ++n) {
        std::vector<uint16_t> out(n + 8, 0xdead);
        convert_row(in.data() + offset, n, format, Conversion::kNearestEven, out.data());
        for (size_t i = 0; i < n; ++i) {
          const double x = in[offset + i];
          ASSERT_EQ(out[i], format == Dtype::kFloat16 ? f16_from_f64(x) : bf16_from_f64(x))
              << describe(x) << " n=" << n << " offset=" << offset;
        }
        for (size_t i = n; i < out.size(); ++i) ASSERT_EQ(out[i], 0xdead) << "wrote past n=" << n;
      }
    }
  }
}

TEST_P(ConvertRowF64, TruncateRoundsToFloatThenDropsTheLowBits) {
  const double in[] = {1.0 + 0x1p-30, 0x1.01ffffffp0, -3.75, 1e-40, 0x1.fffffffp0};
  uint16_t out[5];
  convert_row(in, 5, Dtype::kBFloat16, Conversion::kTruncate, out);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(out[i], std::bit_cast<uint32_t>(static_cast<float>(in[i])) >> 16) << describe(in[i]);
}

}  // namespace
}  // namespace pev::core
