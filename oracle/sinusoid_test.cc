// The sinusoidal tables' oracle (oracle/sinusoid.h): at integer positions it is the MPFR engine
// bit for bit; at real positions it agrees with Boost.Multiprecision's 100-digit sin and cos,
// written as the math reads; ALiBi's slopes are exact.
#include "peverify/oracle/sinusoid.h"

#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <random>

#include "peverify/encoding/format.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle {
namespace {

using Big = boost::multiprecision::cpp_bin_float_100;

// A table of d columns' frequencies b^(-2k/d) (s = 0) or b^(-k/(d/2 - 1)) (s = 1), as a timestep
// embedding declares them.
SinusoidTable ladder(int d, double base, int shift) {
  SinusoidTable t;
  for (int k = 0; k < d / 2; ++k) t.frequencies.push_back({base, -k, d / 2 - shift});
  return t;
}

TEST(SinusoidOracle, AtIntegerPositionsIsTheEngineBitForBit) {
  for (const Dtype target : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    for (const auto& [d, base, shift] :
         {std::tuple{64, 10000.0, 0}, {320, 10000.0, 1}, {128, 500000.0, 0}, {16, 256.0, 1}}) {
      TableSpec spec = grid_spec(d, base);
      spec.schedule = shift ? Schedule::kT2T : Schedule::kPaper;
      const auto engine = make_mpfr_engine(spec, target);
      const SinusoidOracle oracle(ladder(d, base, shift));
      for (const uint64_t pos : {uint64_t{1}, uint64_t{999}, uint64_t{131071}, uint64_t{1} << 40}) {
        TileValues v;
        engine->evaluate({pos, 1, 0, d / 2}, v);
        for (int k = 0; k < d / 2; ++k) {
          const SinCos s = oracle.evaluate(static_cast<double>(pos), k);
          EXPECT_EQ(s.sin_in(target), v.sin_rounded[k]) << "pos " << pos << " pair " << k;
          EXPECT_EQ(s.cos_in(target), v.cos_rounded[k]) << "pos " << pos << " pair " << k;
          EXPECT_EQ(s.sin_exact, v.sin_exact[k]) << "pos " << pos << " pair " << k;
          EXPECT_EQ(s.cos_exact, v.cos_exact[k]) << "pos " << pos << " pair " << k;
        }
      }
    }
  }
}

TEST(SinusoidOracle, AtRealPositionsAgreesWithBoostMultiprecision) {
  std::mt19937_64 rng(20261127);
  std::uniform_real_distribution<double> uniform(-1500.0, 1500.0);
  SinusoidTable t = ladder(256, 10000, 0);
  t.scale = 1000;  // Qwen-Image's scale after the product
  const SinusoidOracle oracle(t);
  for (int i = 0; i < 300; ++i) {
    const double x = static_cast<double>(static_cast<float>(uniform(rng) / 1000));  // a float32 t
    const int k = static_cast<int>(rng() % 128);
    const Big angle = Big(t.scale) * Big(x) * boost::multiprecision::pow(Big(10000), Big(-k) / 128);
    const SinCos s = oracle.evaluate(x, k);
    EXPECT_EQ(s.sin_exact, static_cast<double>(sin(angle))) << "x " << x << " k " << k;
    EXPECT_EQ(s.cos_exact, static_cast<double>(cos(angle))) << "x " << x << " k " << k;
    EXPECT_EQ(s.sin_in(Dtype::kFloat32), static_cast<double>(static_cast<float>(s.sin_exact)))
        << "rounded once from the exact value; double rounding is measure-zero here";
  }
}

TEST(SinusoidOracle, ZeroAnglesAreExact) {
  const SinusoidOracle oracle(ladder(8, 10000, 0));
  const SinCos z = oracle.evaluate(0.0, 3);
  EXPECT_EQ(z.cos_in(Dtype::kBFloat16), 1.0);
  EXPECT_EQ(z.sin_in(Dtype::kBFloat16), 0.0);
  EXPECT_FALSE(std::signbit(z.sin_exact));
  EXPECT_TRUE(std::signbit(oracle.evaluate(-0.0, 3).sin_exact));  // sin(-0.0) is -0.0
  const SinCos neg = oracle.evaluate(-2.5, 1), pos = oracle.evaluate(2.5, 1);
  EXPECT_EQ(neg.sin_exact, -pos.sin_exact);
  EXPECT_EQ(neg.cos_exact, pos.cos_exact);
}

TEST(AlibiOracle, SlopesAreExact) {
  // Powers of two are exact (Ziv's test could never decide them): 8 heads, 2^-1 .. 2^-8.
  const auto slopes = alibi_slopes(8, 8, AlibiRule::kReference);
  for (int h = 0; h < 8; ++h)
    EXPECT_EQ(exact_alibi_slope(slopes[h], 8, Dtype::kBFloat16).rounded, std::ldexp(1.0, -(h + 1)));
  // 12 heads: 8 powers of two, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
  const auto twelve = alibi_slopes(12, 8, AlibiRule::kReference);
  for (int k = 0; k < 4; ++k) {
    const Big m = boost::multiprecision::pow(Big(2), Big(-(2 * k + 1)) / 2);
    const ExactSlope e = exact_alibi_slope(twelve[8 + k], 8, Dtype::kFloat32);
    EXPECT_EQ(e.value, static_cast<double>(m)) << k;
    EXPECT_EQ(e.rounded, static_cast<double>(static_cast<float>(m))) << k;
    EXPECT_FALSE(e.exact);
  }
  // max_bias that is not a whole number.
  const ExactSlope odd = exact_alibi_slope({1, 3, 1}, 7.5, Dtype::kFloat32);
  EXPECT_EQ(odd.value, static_cast<double>(boost::multiprecision::pow(Big(2), Big(-7.5) / 3)));
  EXPECT_EQ(odd.rounded, static_cast<double>(static_cast<float>(odd.value)));
  EXPECT_TRUE(exact_alibi_slope(slopes[2], 8, Dtype::kFloat32).exact);
  // Far below every format's range: +0, without MPFR's exponent range.
  EXPECT_EQ(exact_alibi_slope({1, 1, 1}, 1e9 + 0.5, Dtype::kFloat16).rounded, 0.0);
}

}  // namespace
}  // namespace pev::oracle
