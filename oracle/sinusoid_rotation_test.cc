// The rotation at real ids (oracle/sinusoid_rotation.h): the double-double fast path gives MPFR's
// bits on random inputs of every format, at angles up to 2^20, negative and fractional ids, and
// the exact cases (an angle of 0, zero inputs) exactly.
#include "peverify/oracle/sinusoid_rotation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "peverify/encoding/sinusoids/rope_axes.h"
#include "peverify/encoding/sinusoids/timestep.h"

namespace pev::oracle {
namespace {

TEST(SinusoidRotation, FastPathGivesMpfrsBits) {
  const SinusoidTable t = rope_axes_table(parse_rope_axes("flux", std::nullopt), Layout::kRopeCos);
  std::mt19937_64 rng(35);
  std::uniform_real_distribution<double> id(-4096, 4096), value(-4, 4);
  for (const Dtype target : {Dtype::kFloat32, Dtype::kBFloat16, Dtype::kFloat16}) {
    const SinusoidRotation rotation(t, target);
    for (int i = 0; i < 4000; ++i) {
      const double x = i % 3 ? std::round(id(rng)) : round_to(id(rng) / 7, 0, Dtype::kFloat32);
      const int f = static_cast<int>(rng() % t.frequencies.size());
      const SinusoidRotation::Angle a = rotation.angle(x, f);
      // Inputs as stored: values of the target format.
      const double u = round_to(value(rng), 0, target), v = round_to(value(rng), 0, target);
      for (const int sign : {-1, 1}) {
        const auto fast = rotation.combine(a, u, v, sign);
        const auto slow = rotation.combine_mpfr(a, u, v, sign);
        ASSERT_EQ(fast.exact, slow.exact) << "x " << x << " f " << f << " u " << u << " v " << v;
        ASSERT_EQ(fast.rounded, slow.rounded) << "x " << x << " f " << f;
      }
    }
    EXPECT_LT(rotation.handed_off(), 100u) << "the fast path decides nearly every element";
  }
}

TEST(SinusoidRotation, ExactCases) {
  const SinusoidTable t = rope_axes_table(parse_rope_axes("2", 10000.0), Layout::kRopeCos);
  const SinusoidRotation rotation(t, Dtype::kBFloat16);
  const auto zero = rotation.angle(0.0, 0);
  EXPECT_TRUE(zero.zero);
  EXPECT_EQ(rotation.combine(zero, 0.3, 0.7, -1).exact, 0.3);
  EXPECT_EQ(rotation.combine(zero, 0.3, 0.7, -1).rounded, round_to(0.3, 0, Dtype::kBFloat16));
  const auto a = rotation.angle(5.5, 0);  // cos 5.5, sin 5.5 (w = 1)
  const auto r = rotation.combine(a, 1.0, 0.0, -1);
  EXPECT_EQ(r.exact, std::cos(5.5));
  const auto z = rotation.combine(a, 0.0, 0.0, 1);
  EXPECT_EQ(z.exact, 0.0);
  EXPECT_FALSE(std::signbit(z.exact));
  // At angle 0 an input of -0 (with a nonzero partner) rotates to an exact 0, written +0 as the
  // other engines write it, on the fast path and MPFR's alike.
  for (const auto& got :
       {rotation.combine(zero, -0.0, 0.7, -1), rotation.combine_mpfr(zero, -0.0, 0.7, -1)}) {
    EXPECT_EQ(got.exact, 0.0);
    EXPECT_FALSE(std::signbit(got.exact) || std::signbit(got.rounded));
  }
}

// Inputs far below the fast path's range go to MPFR, whose error bound is an exponent kept in
// integers: tiny products still decide, and agree with cos and sin scaled exactly.
TEST(SinusoidRotation, TinyInputsAreDecidedByMpfr) {
  const SinusoidTable t = rope_axes_table(parse_rope_axes("2", 10000.0), Layout::kRopeCos);
  const SinusoidRotation rotation(t, Dtype::kFloat32);
  const auto a = rotation.angle(5.5, 0);
  for (const double u : {0x1p-1000, 0x1p-1070, 0x1p-1074}) {
    const auto r = rotation.combine(a, u, 0.0, -1);
    EXPECT_EQ(r.exact, std::ldexp(std::cos(5.5), -1000) * std::ldexp(u, 1000)) << u;
    EXPECT_EQ(r.rounded, 0.0) << u;  // far below float32's smallest subnormal
  }
}

}  // namespace
}  // namespace pev::oracle
