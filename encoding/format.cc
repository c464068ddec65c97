#include "peverify/encoding/format.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

namespace pev {
namespace {

// Encodes a representable double into a binary16-like layout with `exp_bits` exponent bits.
uint64_t encode_small(double v, int exp_bits, int mant_bits) {
  const uint64_t sign = std::signbit(v) ? uint64_t{1} << (exp_bits + mant_bits) : 0;
  const uint64_t exp_all_ones = (uint64_t{1} << exp_bits) - 1;
  const int bias = static_cast<int>(exp_all_ones >> 1);
  const double a = std::fabs(v);
  if (std::isnan(v)) return sign | (exp_all_ones << mant_bits) | (uint64_t{1} << (mant_bits - 1));
  if (std::isinf(v)) return sign | (exp_all_ones << mant_bits);
  if (a == 0.0) return sign;
  const int e = std::ilogb(a);
  if (e < 1 - bias) {  // subnormal: the quantum is 2^(1 - bias - mant_bits)
    const double m = std::ldexp(a, bias - 1 + mant_bits);
    assert(m == std::floor(m));
    return sign | static_cast<uint64_t>(m);
  }
  const double frac = std::ldexp(a, -e) - 1.0;  // in [0, 1)
  const double m = std::ldexp(frac, mant_bits);
  assert(m == std::floor(m) && e + bias < static_cast<int>(exp_all_ones));
  return sign | (static_cast<uint64_t>(e + bias) << mant_bits) | static_cast<uint64_t>(m);
}

double decode_small(uint64_t bits, int exp_bits, int mant_bits) {
  const uint64_t exp_all_ones = (uint64_t{1} << exp_bits) - 1;
  const int bias = static_cast<int>(exp_all_ones >> 1);
  const bool negative = (bits >> (exp_bits + mant_bits)) & 1;
  const uint64_t e = (bits >> mant_bits) & exp_all_ones;
  const uint64_t m = bits & ((uint64_t{1} << mant_bits) - 1);
  double a;
  if (e == exp_all_ones) {
    a = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    a = std::ldexp(static_cast<double>(m), 1 - bias - mant_bits);
  } else {
    a = std::ldexp(static_cast<double>(m | (uint64_t{1} << mant_bits)),
                   static_cast<int>(e) - bias - mant_bits);
  }
  return negative ? -a : a;
}

}  // namespace

uint64_t encode_exact(double value, Dtype t) {
  switch (t) {
    case Dtype::kFloat64:
      return std::bit_cast<uint64_t>(value);
    case Dtype::kFloat32:
      assert(std::isnan(value) || static_cast<double>(static_cast<float>(value)) == value);
      return std::bit_cast<uint32_t>(static_cast<float>(value));
    case Dtype::kFloat16:
      return encode_small(value, 5, 10);
    case Dtype::kBFloat16:
      return encode_small(value, 8, 7);
  }
  return 0;
}

double decode(uint64_t bits, Dtype t) {
  switch (t) {
    case Dtype::kFloat64:
      return std::bit_cast<double>(bits);
    case Dtype::kFloat32:
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case Dtype::kFloat16:
      return decode_small(bits & 0xffff, 5, 10);
    case Dtype::kBFloat16:
      return decode_small(bits & 0xffff, 8, 7);
  }
  return 0;
}

}  // namespace pev
