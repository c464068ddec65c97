// Arithmetic in a compute type, as frameworks do it: float64 and float32 natively; "native"
// float16 and bfloat16 by computing each operation in float and rounding the result to the low
// type, as PyTorch does on CPU when a whole tensor is in that dtype. Nothing is fused: the
// module is built with -ffp-contract=off.
#pragma once

#include <cmath>
#include <cstdint>

#include "peverify/core/convert.h"

namespace pev::core::glibc {

struct Float64 {
  using T = double;
  static T from_double(double x) { return x; }
  static T from_position(uint64_t p) { return static_cast<double>(p); }
  static T add(T a, T b) { return a + b; }
  static T sub(T a, T b) { return a - b; }
  static T mul(T a, T b) { return a * b; }
  static T div(T a, T b) { return a / b; }
  static T sin(T x) { return std::sin(x); }
  static T cos(T x) { return std::cos(x); }
  static T exp(T x) { return std::exp(x); }
  static T pow(T x, T y) { return std::pow(x, y); }
};

struct Float32 {
  using T = float;
  static T from_double(double x) { return static_cast<float>(x); }
  static T from_position(uint64_t p) { return static_cast<float>(p); }  // exact below 2^24
  static T add(T a, T b) { return a + b; }
  static T sub(T a, T b) { return a - b; }
  static T mul(T a, T b) { return a * b; }
  static T div(T a, T b) { return a / b; }
  static T sin(T x) { return sinf(x); }
  static T cos(T x) { return cosf(x); }
  static T exp(T x) { return expf(x); }
  static T pow(T x, T y) { return powf(x, y); }
};

// A low-precision type held in float: every result is rounded back with `Round`.
template <uint16_t (*ToBits)(float), float (*FromBits)(uint16_t)>
struct Narrow {
  using T = float;
  static T round(float x) { return FromBits(ToBits(x)); }
  static T from_double(double x) { return round(static_cast<float>(x)); }
  static T from_position(uint64_t p) { return round(static_cast<float>(p)); }
  static T add(T a, T b) { return round(a + b); }
  static T sub(T a, T b) { return round(a - b); }
  static T mul(T a, T b) { return round(a * b); }
  static T div(T a, T b) { return round(a / b); }
  static T sin(T x) { return round(sinf(x)); }
  static T cos(T x) { return round(cosf(x)); }
  static T exp(T x) { return round(expf(x)); }
  static T pow(T x, T y) { return round(powf(x, y)); }
};

using Float16 = Narrow<f16_from_f32, f32_from_f16>;
using BFloat16 = Narrow<bf16_from_f32, f32_from_bf16>;

}  // namespace pev::core::glibc
