// The row conversions on every compiled SIMD target (the target is in the test name), against the
// oracle's rounding on a dense sample of floats: every 1021st bit pattern, and every pattern
// within 4 floats of each float16 / bfloat16 value and midpoint. convert_exhaustive_test does all
// 2^32.
#include "peverify/core/convert.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "peverify/crosscheck/convert_testutil.h"
#include "peverify/encoding/format.h"

namespace pev::core {
namespace {

using testutil::describe;
using testutil::is_quiet_nan;
using testutil::OracleRounding;

// A prime stride, so the sample meets every exponent and every low-bit pattern. The oracle costs
// ~0.15 us a value: the sample keeps each test near a second on 2 cores.
constexpr uint64_t kStride = 1021;
constexpr int kNear = 4;  // floats either side of each value and midpoint of the format

uint32_t bits_of(float x) { return std::bit_cast<uint32_t>(x); }

std::vector<float> dense_sample(Dtype format) {
  std::vector<float> s;
  for (uint64_t b = 0; b <= 0xffffffffu; b += kStride) {
    s.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
  }
  // Each value of the format and the midpoint above it (exact in float), and their neighbours.
  const uint16_t largest = format == Dtype::kFloat16 ? 0x7bff : 0x7f7f;
  for (uint16_t h = 0; h <= largest; ++h) {
    const double value = decode(h, format);
    const double next = h == largest ? 2 * value - decode(h - 1, format) : decode(h + 1, format);
    for (const float center : {static_cast<float>(value), static_cast<float>((value + next) / 2)}) {
      for (int k = -kNear; k <= kNear; ++k) {
        const uint32_t b = bits_of(center) + static_cast<uint32_t>(k);
        if (bits_of(center) == 0 && k < 0) continue;
        s.push_back(std::bit_cast<float>(b));
        s.push_back(std::bit_cast<float>(b | 0x80000000u));
      }
    }
  }
  // Float subnormals, the largest floats, Inf and a few NaNs.
  for (uint32_t b = 0; b < 64; ++b) {
    for (const uint32_t base : {0x00000000u, 0x007fffe0u, 0x7f7fffc0u, 0x7f800000u, 0x7fc00000u}) {
      s.push_back(std::bit_cast<float>(base + b));
      s.push_back(std::bit_cast<float>((base + b) | 0x80000000u));
    }
  }
  return s;
}

// The sample and the oracle's verdict on it, once per process and format.
struct Reference {
  std::vector<float> inputs;
  std::vector<uint16_t> expected;  // unused for NaN inputs
};

const Reference& reference(Dtype format) {
  static Reference cache[2];
  Reference& r = cache[format == Dtype::kFloat16 ? 0 : 1];
  if (r.inputs.empty()) {
    r.inputs = dense_sample(format);
    r.expected.resize(r.inputs.size());
    testutil::parallel_for(r.inputs.size(), [&](size_t begin, size_t end) {
      OracleRounding oracle;
      for (size_t i = begin; i < end; ++i) {
        if (!std::isnan(r.inputs[i])) r.expected[i] = oracle.expected(r.inputs[i], format);
      }
    });
  }
  return r;
}

// Converts the whole sample as one row (the vector path) and checks it against the oracle.
void expect_matches_oracle(Dtype format) {
  const Reference& r = reference(format);
  std::vector<uint16_t> got(r.inputs.size());
  convert_row(r.inputs.data(), r.inputs.size(), format, Conversion::kNearestEven, got.data());
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool ok =
        std::isnan(r.inputs[i]) ? is_quiet_nan(got[i], format) : got[i] == r.expected[i];
    if (ok) continue;
    if (++wrong <= 10) {
      ADD_FAILURE() << describe(r.inputs[i]) << ": got 0x" << std::hex << got[i] << ", oracle 0x"
                    << r.expected[i];
    }
  }
  EXPECT_EQ(wrong, 0u) << "of " << got.size() << " inputs on " << convert_target();
  // The strided floats alone, then every value and midpoint of the format and their neighbours.
  EXPECT_GT(got.size(), (uint64_t{1} << 32) / kStride + 4 * 0x7bff) << "inputs compared";
}

class ConvertRow : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(ConvertRow);

TEST_P(ConvertRow, DispatchesToTheTargetUnderTest) {
  EXPECT_EQ(convert_target(), hwy::TargetName(GetParam()));
}

TEST_P(ConvertRow, Float16MatchesOracleOnDenseSample) { expect_matches_oracle(Dtype::kFloat16); }

TEST_P(ConvertRow, BFloat16MatchesOracleOnDenseSample) { expect_matches_oracle(Dtype::kBFloat16); }

TEST_P(ConvertRow, BFloat16TruncateDropsTheLow16Bits) {
  const std::vector<float> in = dense_sample(Dtype::kBFloat16);
  std::vector<uint16_t> got(in.size());
  convert_row(in.data(), in.size(), Dtype::kBFloat16, Conversion::kTruncate, got.data());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(got[i], bits_of(in[i]) >> 16) << describe(in[i]);
  }
}

uint16_t scalar(float x, Dtype format, Conversion conversion) {
  if (format == Dtype::kFloat16) return f16_from_f32(x);
  return conversion == Conversion::kTruncate ? bf16_from_f32_truncate(x) : bf16_from_f32(x);
}

// The scalar functions are rows of one element: they take the row's tail path, which must give
// what the vector loop gives.
TEST_P(ConvertRow, ScalarFunctionsEqualTheRowOnDenseSample) {
  for (const Dtype format : {Dtype::kFloat16, Dtype::kBFloat16}) {
    const std::vector<float> in = dense_sample(format);
    for (const Conversion conversion : {Conversion::kNearestEven, Conversion::kTruncate}) {
      std::vector<uint16_t> row(in.size());
      convert_row(in.data(), in.size(), format, conversion, row.data());
      for (size_t i = 0; i < in.size(); ++i) {
        ASSERT_EQ(scalar(in[i], format, conversion), row[i])
            << describe(in[i]) << " to " << name_of(format);
      }
    }
  }
}

// Rows of any length and alignment give the same bits as element-by-element conversion, and
// write nothing past their end.
TEST_P(ConvertRow, EveryLengthAndOffsetEqualsTheScalarFunctions) {
  std::mt19937 rng(20240611);
  std::vector<float> in(256);
  for (float& x : in) x = std::bit_cast<float>(static_cast<uint32_t>(rng()));
  in[3] = 65520.0f;
  in[17] = std::bit_cast<float>(0x3f808000u);  // a bfloat16 tie
  for (const Dtype format : {Dtype::kFloat16, Dtype::kBFloat16}) {
    for (const Conversion conversion : {Conversion::kNearestEven, Conversion::kTruncate}) {
      for (size_t offset = 0; offset < 5; ++offset) {
        for (size_t n = 0; n + offset <= 3 * 64 + 1; ++n) {
          std::vector<uint16_t> out(n + 8, 0xdead);
          convert_row(in.data() + offset, n, format, conversion, out.data());
          for (size_t i = 0; i < n; ++i) {
            const float x = in[offset + i];
            ASSERT_EQ(out[i], scalar(x, format, conversion))
                << describe(x) << " n=" << n << " offset=" << offset;
          }
          for (size_t i = n; i < out.size(); ++i) ASSERT_EQ(out[i], 0xdead) << "wrote past n=" << n;
        }
      }
    }
  }
}

TEST_P(ConvertRow, NaNStaysAQuietNaNWithItsSign) {
  for (const uint32_t payload :
       {0x000001u, 0x001000u, 0x002000u, 0x008000u, 0x010000u, 0x200000u, 0x400000u, 0x7fffffu}) {
    for (const uint32_t sign : {0u, 0x80000000u}) {
      const float x = std::bit_cast<float>(sign | 0x7f800000u | payload);
      const uint16_t h = f16_from_f32(x), b = bf16_from_f32(x);
      EXPECT_TRUE(is_quiet_nan(h, Dtype::kFloat16)) << describe(x) << std::hex << " -> 0x" << h;
      EXPECT_TRUE(is_quiet_nan(b, Dtype::kBFloat16)) << describe(x) << std::hex << " -> 0x" << b;
      EXPECT_EQ(h >> 15, sign >> 31);
      EXPECT_EQ(b >> 15, sign >> 31);
    }
  }
}

// The boundaries, spelled out (the dense sample covers them too).
// Float16's boundaries: the largest finite, the tie to Inf, signed zero, subnormals and their
// ties, the carry to the smallest normal.
const std::pair<float, uint16_t> kFloat16Boundaries[] = {
    {65504.0f, 0x7bff},
    {std::nextafter(65520.0f, 0.0f), 0x7bff},
    {65520.0f, 0x7c00},  // the tie goes to the even "2^16": Inf
    {-65520.0f, 0xfc00},
    {std::numeric_limits<float>::infinity(), 0x7c00},
    {-0.0f, 0x8000},
    {0x1p-24f, 0x0001},    // smallest subnormal
    {0x1p-25f, 0x0000},    // half of it: the tie goes to even zero
    {0x1.8p-24f, 0x0002},  // 1.5 quanta: even 2
    {std::nextafter(0x1p-25f, 1.0f), 0x0001},
    {0x1.ffcp-15f, 0x0400},  // the largest subnormal's tie carries to 2^-14
    {std::numeric_limits<float>::denorm_min(), 0x0000},
};

// The row conversion of every Highway target.
TEST_P(ConvertRow, Float16Boundaries) {
  for (const auto& [x, want] : kFloat16Boundaries) {
    uint16_t got;
    convert_row(&x, 1, Dtype::kFloat16, Conversion::kNearestEven, &got);
    EXPECT_EQ(got, want) << x;
  }
}

// The one-value functions: F16C's instruction where the CPU has it (core/convert.cc), else the
// dispatched row; each way to and from float16.
TEST(ConvertScalar, Float16BoundariesBothWays) {
  for (const auto& [x, want] : kFloat16Boundaries) {
    EXPECT_EQ(f16_from_f32(x), want) << x;
    if (std::fabs(x) <= 65504.0f && x == static_cast<float>(std::bit_cast<_Float16>(want)))
      EXPECT_EQ(std::bit_cast<uint32_t>(f32_from_f16(want)), std::bit_cast<uint32_t>(x)) << x;
  }
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float widened = f32_from_f16(static_cast<uint16_t>(h));
    const float software = static_cast<float>(std::bit_cast<_Float16>(static_cast<uint16_t>(h)));
    if (std::isnan(software))
      EXPECT_TRUE(std::isnan(widened)) << h;
    else
      EXPECT_EQ(std::bit_cast<uint32_t>(widened), std::bit_cast<uint32_t>(software)) << h;
    if (!std::isnan(widened)) EXPECT_EQ(f16_from_f32(widened), h) << h;
  }
}

TEST_P(ConvertRow, BFloat16Boundaries) {
  EXPECT_EQ(bf16_from_f32(0x1.fep127f), 0x7f7f);
  EXPECT_EQ(bf16_from_f32(0x1.ffp127f), 0x7f80);  // the tie above the largest: Inf
  EXPECT_EQ(bf16_from_f32(std::nextafter(0x1.ffp127f, 0.0f)), 0x7f7f);
  EXPECT_EQ(bf16_from_f32(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bf16_from_f32(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even below
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, even above
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x00008000u)), 0x0000);  // subnormal tie
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x007f8000u)), 0x0080);  // carries to normal
  EXPECT_EQ(bf16_from_f32_truncate(std::bit_cast<float>(0x3f81ffffu)), 0x3f81);
}

TEST(ConvertFromDouble, TruncateRoundsToFloatThenDropsTheLowBits) {
  const double in[] = {1.0 + 0x1p-30, 0x1.01ffffffp0, -3.75, 1e-40};
  uint16_t out[4];
  convert_row(in, 4, Dtype::kBFloat16, Conversion::kTruncate, out);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], bits_of(static_cast<float>(in[i])) >> 16);
}

TEST(ConvertRowWide, Float32AndFloat64OutputsAreExact) {
  const float f[] = {1.5f, -0.0f, 0x1p-149f, 3.4e38f, 0.1f};
  const double d[] = {1.5, -0.0, 0x1p-149, 3.4e38, 0.1};
  float out_f[5];
  double out_d[5];
  convert_row(f, 5, Dtype::kFloat32, Conversion::kNearestEven, out_f);
  convert_row(f, 5, Dtype::kFloat64, Conversion::kNearestEven, out_d);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(bits_of(out_f[i]), bits_of(f[i]));
    EXPECT_EQ(std::bit_cast<uint64_t>(out_d[i]), std::bit_cast<uint64_t>(double{f[i]}));
  }
  convert_row(d, 5, Dtype::kFloat32, Conversion::kNearestEven, out_f);
  convert_row(d, 5, Dtype::kFloat64, Conversion::kNearestEven, out_d);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(bits_of(out_f[i]), bits_of(static_cast<float>(d[i])));
    EXPECT_EQ(std::bit_cast<uint64_t>(out_d[i]), std::bit_cast<uint64_t>(d[i]));
  }
}

TEST(ConvertWiden, IsExactOnEveryPattern) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const uint16_t b = static_cast<uint16_t>(h);
    const double f16 = decode(b, Dtype::kFloat16), bf16 = decode(b, Dtype::kBFloat16);
    if (std::isnan(f16)) {
      EXPECT_TRUE(std::isnan(f32_from_f16(b)));
    } else {
      ASSERT_EQ(std::bit_cast<uint64_t>(double{f32_from_f16(b)}), std::bit_cast<uint64_t>(f16));
    }
    if (std::isnan(bf16)) {
      EXPECT_TRUE(std::isnan(f32_from_bf16(b)));
    } else {
      ASSERT_EQ(std::bit_cast<uint64_t>(double{f32_from_bf16(b)}), std::bit_cast<uint64_t>(bf16));
    }
  }
}

}  // namespace
}  // namespace pev::core
