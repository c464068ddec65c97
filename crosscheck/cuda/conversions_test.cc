// The CUDA conversions to float16 / bfloat16 against the oracle's rounding. Without a GPU: the host
// versions in cuda_fp16.h / cuda_bf16.h (the same rounding rule the device's cvt.rn instructions
// implement, which ptx_test.cc finds in every kernel) against core's conversions, which
// core/convert_exhaustive_test.cc verified against the oracle on every float, on every boundary
// and a dense sample; and directly against the oracle on a sample. With a GPU: the device's
// conversions of every float against core's.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "peverify/core/convert.h"
#include "peverify/core/cuda/convert_probe.h"
#include "peverify/core/registry.h"
#include "peverify/crosscheck/convert_testutil.h"

namespace pev::core::cuda {
namespace {

uint16_t cuda_f16(float x) { return __half_as_ushort(__float2half_rn(x)); }
uint16_t cuda_bf16(float x) { return __bfloat16_as_ushort(__float2bfloat16_rn(x)); }
uint16_t cuda_f16(double x) { return __half_as_ushort(__double2half(x)); }
uint16_t cuda_bf16(double x) { return __bfloat16_as_ushort(__double2bfloat16(x)); }

bool is_nan16(uint16_t bits, Dtype t) {
  return t == Dtype::kFloat16 ? (bits & 0x7fff) > 0x7c00 : (bits & 0x7fff) > 0x7f80;
}

// Equal bit patterns; for NaN inputs both NaN (CUDA gives the canonical 0x7fff, core keeps the
// payload's top bits: the payload is not part of the rounding). Reports the first few mismatches.
class Compare {
 public:
  void operator()(uint16_t cuda, uint16_t core, Dtype t, double x) {
    const bool same = std::isnan(x) ? is_nan16(cuda, t) && is_nan16(core, t) : cuda == core;
    if (!same && ++mismatches_ <= 10)
      ADD_FAILURE() << name_of(t) << " of " << std::hexfloat << x << ": cuda " << cuda << ", core "
                    << core;
  }
  ~Compare() { EXPECT_EQ(mismatches_, 0u); }

 private:
  uint64_t mismatches_ = 0;
};

// Floats around every float16 / bfloat16 boundary: each representable value, the midpoints to
// its neighbours and the floats on either side of them (ties and near-ties), plus overflow,
// subnormals and specials.
std::vector<float> boundary_floats(Dtype t) {
  std::vector<float> out;
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t b = static_cast<uint16_t>(bits);
    if (is_nan16(b, t)) continue;
    const float v = t == Dtype::kFloat16 ? f32_from_f16(b) : f32_from_bf16(b);
    const uint16_t next = static_cast<uint16_t>(b + 1);
    const bool has_next =
        !is_nan16(next, t) && (b & 0x7fff) != (t == Dtype::kFloat16 ? 0x7c00 : 0x7f80);
    for (float x : {v, std::nextafter(v, 0.0f), std::nextafter(v, INFINITY)}) out.push_back(x);
    if (has_next) {
      const float w = t == Dtype::kFloat16 ? f32_from_f16(next) : f32_from_bf16(next);
      const float mid = static_cast<float>((static_cast<double>(v) + w) / 2);  // exact
      for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)})
        out.push_back(x);
    }
  }
  for (float x : {65504.0f, 65519.0f, 65520.0f, 65536.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 3.4e38f,
                  INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 0x1p-149f})
    out.push_back(x);
  return out;
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> out(n);
  for (float& x : out) x = std::bit_cast<float>(static_cast<uint32_t>(rng()));
  return out;
}

TEST(HostConversion, Float16EqualsCoreOnBoundariesAndSample) {
  Compare same;
  for (const auto& xs : {boundary_floats(Dtype::kFloat16), random_floats(1 << 22, 1)})
    for (float x : xs) same(cuda_f16(x), f16_from_f32(x), Dtype::kFloat16, x);
}

TEST(HostConversion, BFloat16EqualsCoreOnBoundariesAndSample) {
  Compare same;
  for (const auto& xs : {boundary_floats(Dtype::kBFloat16), random_floats(1 << 22, 2)})
    for (float x : xs) same(cuda_bf16(x), bf16_from_f32(x), Dtype::kBFloat16, x);
}

// Doubles near float16 / bfloat16 midpoints, the traps of rounding twice (via float): a double
// just above or below a midpoint rounds to the midpoint as a float.
std::vector<double> trap_doubles(Dtype t, size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> out;
  const int shift = t == Dtype::kFloat16 ? 41 : 44;  // 52 - precision: the half-ulp bit
  while (out.size() < n) {
    const uint64_t r = rng();
    // A double in [2^-30, 2^16) with the bits below the format's last bit set to a midpoint,
    // then moved by a few double ulps.
    const int e = static_cast<int>(r % 46) - 30;
    uint64_t bits = std::bit_cast<uint64_t>(std::ldexp(1.0 + (rng() >> 12) * 0x1p-52, e));
    bits = (bits & ~((uint64_t{1} << (shift + 1)) - 1)) | (uint64_t{1} << shift);
    const int64_t nudge = static_cast<int64_t>(rng() % 7) - 3;
    out.push_back((r >> 63 ? -1 : 1) * std::bit_cast<double>(bits + nudge));
  }
  return out;
}

TEST(HostConversion, FromDoubleEqualsCoreIncludingDoubleRoundingTraps) {
  Compare same;
  for (Dtype t : {Dtype::kFloat16, Dtype::kBFloat16}) {
    std::vector<double> xs = trap_doubles(t, 1 << 18, 3);
    uint64_t traps = 0;  // doubles that rounding via float would get wrong
    for (double x : xs) {
      const float f = static_cast<float>(x);
      traps += t == Dtype::kFloat16 ? f16_from_f32(f) != f16_from_f64(x)
                                    : bf16_from_f32(f) != bf16_from_f64(x);
    }
    EXPECT_GT(traps, xs.size() / 10) << name_of(t);
    for (double x : {0.0, -0.0, 65504.0, 65520.0, 0x1p-25, 0x1p-24, 1e300,
                     std::numeric_limits<double>::infinity(), std::nan("")})
      xs.push_back(x);
    for (double x : xs) {
      if (t == Dtype::kFloat16)
        same(cuda_f16(x), f16_from_f64(x), t, x);
      else
        same(cuda_bf16(x), bf16_from_f64(x), t, x);
    }
  }
}

// Straight against the oracle's rounding test (convert_testutil.h), on a sample.
TEST(HostConversion, MatchesTheOracleOnASample) {
  testutil::OracleRounding oracle;
  std::vector<float> xs = random_floats(1 << 15, 4);
  const std::vector<float> f16_edges = boundary_floats(Dtype::kFloat16);
  for (size_t i = 0; i < f16_edges.size(); i += 61) xs.push_back(f16_edges[i]);
  size_t checked = 0;
  for (float x : xs) {
    if (std::isnan(x)) continue;
    EXPECT_EQ(cuda_f16(x), oracle.expected(x, Dtype::kFloat16)) << std::hexfloat << x;
    EXPECT_EQ(cuda_bf16(x), oracle.expected(x, Dtype::kBFloat16)) << std::hexfloat << x;
    ++checked;
  }
  // Random bit patterns are NaN 1 time in 256: nearly all of the 2^15 are compared.
  EXPECT_GT(checked, 32000u) << "of " << xs.size() << " floats";
  for (Dtype t : {Dtype::kFloat16, Dtype::kBFloat16})
    for (double x : trap_doubles(t, 1 << 12, 5))
      EXPECT_EQ(t == Dtype::kFloat16 ? cuda_f16(x) : cuda_bf16(x), oracle.expected(x, t))
          << std::hexfloat << x;
}

// As the CUDA entries decide it (a device of compute capability 8.0 or newer).
bool device_present() {
  const Implementation* e = find_implementation("cuda/precise/f64>f32/accurate");
  return e && e->available();
}

TEST(DeviceConversion, EveryFloatEqualsCore) {
  if (!device_present()) GTEST_SKIP() << "no CUDA device";
  constexpr uint32_t kChunk = uint32_t{1} << 24;
  std::vector<uint16_t> f16(kChunk), bf16(kChunk), want16(kChunk), wantbf(kChunk);
  std::vector<float> in(kChunk);
  uint64_t mismatches = 0;
  for (uint64_t first = 0; first < (uint64_t{1} << 32); first += kChunk) {
    ASSERT_EQ(
        convert_floats_on_device(static_cast<uint32_t>(first), kChunk, f16.data(), bf16.data()), 0);
    for (uint32_t i = 0; i < kChunk; ++i)
      in[i] = std::bit_cast<float>(static_cast<uint32_t>(first + i));
    convert_row(in.data(), kChunk, Dtype::kFloat16, Conversion::kNearestEven, want16.data());
    convert_row(in.data(), kChunk, Dtype::kBFloat16, Conversion::kNearestEven, wantbf.data());
    for (uint32_t i = 0; i < kChunk; ++i) {
      if (std::isnan(in[i])) continue;
      if (f16[i] != want16[i] || bf16[i] != wantbf[i]) {
        if (++mismatches <= 10)
          ADD_FAILURE() << std::hexfloat << in[i] << ": f16 " << f16[i] << " vs " << want16[i]
                        << ", bf16 " << bf16[i] << " vs " << wantbf[i];
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(DeviceConversion, FromDoubleEqualsCore) {
  if (!device_present()) GTEST_SKIP() << "no CUDA device";
  std::vector<double> xs = trap_doubles(Dtype::kFloat16, 1 << 18, 6);
  const std::vector<double> more = trap_doubles(Dtype::kBFloat16, 1 << 18, 7);
  xs.insert(xs.end(), more.begin(), more.end());
  std::vector<uint16_t> f16(xs.size()), bf16(xs.size());
  std::vector<float> f32(xs.size());
  ASSERT_EQ(convert_doubles_on_device(xs.data(), xs.size(), f16.data(), bf16.data(), f32.data()),
            0);
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_EQ(f16[i], f16_from_f64(xs[i])) << std::hexfloat << xs[i];
    EXPECT_EQ(bf16[i], bf16_from_f64(xs[i])) << std::hexfloat << xs[i];
    EXPECT_EQ(std::bit_cast<uint32_t>(f32[i]), std::bit_cast<uint32_t>(static_cast<float>(xs[i])));
  }
}

}  // namespace
}  // namespace pev::core::cuda
