// The device model's arithmetic (device_model.cc only): the shared formulas' arithmetic A on the
// host, rounding +, -, * and correctly rounded division as the device does, with every device
// math function's result put at the edge of its documented bound (DocumentedBounds).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "peverify/core/convert.h"
#include "peverify/core/cuda/device_model.h"
#include "peverify/core/cuda/shared_arith.h"

namespace pev::core::cuda::model {

inline constexpr double kPi =
    3.141592653589793116;  // below pi: |x| > kPi <=> |x| > pi for a float x

// The float32 ulp at y: 2^(e - 23) for |y| in [2^e, 2^(e+1)), 2^-149 below 2^-126.
inline double ulp_f32(double y) {
  if (y == 0) return 0x1p-149;
  int e;
  std::frexp(std::fabs(y), &e);  // |y| in [2^(e-1), 2^e)
  return std::ldexp(1.0, std::max(e - 1, -126) - 23);
}

// Rounding of a compute type (glibc/compute_type.h: float32 exact, the narrow types rounded).
struct RoundF32 {
  static float round(float x) { return x; }
};
struct RoundF16 {
  static float round(float x) { return f32_from_f16(f16_from_f32(x)); }
};
struct RoundBF16 {
  static float round(float x) { return f32_from_bf16(bf16_from_f32(x)); }
};

// Which way a device function's result is pushed: a fixed sign, or away from a target (the exact
// value of the table element it becomes).
struct Push {
  int sign = +1;
  bool away = false;
  double from = 0;
  int sign_at(double y) const { return away ? (y >= from ? +1 : -1) : sign; }
};

// The twin's arithmetic for compute rounding R: +, -, * and the correctly rounded division exactly
// as the device rounds them; the math functions at the edge of their documented bounds.
template <class R>
class ModelArith {
 public:
  using T = float;
  ModelArith(Backend backend, bool none) : fast_(backend == Backend::kCudaFast), none_(none) {}
  T from_double(double x) const { return R::round(float_of(x)); }
  T from_position(uint64_t p) const { return R::round(float_of_position(p)); }
  T add(T a, T b) const { return R::round(add_rn(a, b)); }
  T sub(T a, T b) const { return R::round(sub_rn(a, b)); }
  T mul(T a, T b) const { return R::round(mul_rn(a, b)); }
  T div(T a, T b) const {
    // __fdividef is a * (1 / b) (div.approx.f32, PTX ISA): 0 / b is exactly 0.
    if (!fast_ || a == 0) return R::round(div_rn(a, b));
    const double q = static_cast<double>(a) / b;
    return R::round(pushed(q, DocumentedBounds::kFdividefUlps * ulp_f32(q), op.sign_at(q)));
  }
  // Special values are exact: sin(+-0) = +-0, cos(+-0) = 1, exp(0) = 1, pow(x, 0) = 1 (C99 Annex
  // F, as the CUDA Math API documents them; the PTX ISA gives the same for sin/cos/ex2.approx).
  void sincos(T x, T& s, T& c) const {
    if (x == 0) {
      s = x;
      c = 1;
      return;
    }
    const double sx = std::sin(static_cast<double>(x)), cx = std::cos(static_cast<double>(x));
    const double bs =
        fast_ ? DocumentedBounds::fast_sin_abs() : DocumentedBounds::kSinfUlps * ulp_f32(sx);
    const double bc =
        fast_ ? DocumentedBounds::fast_cos_abs() : DocumentedBounds::kSinfUlps * ulp_f32(cx);
    s = R::round(pushed(sx, bs, sin_push.sign_at(sx)));
    c = R::round(pushed(cx, bc, cos_push.sign_at(cx)));
  }
  T exp(T x) const {
    if (x == 0) return 1;
    const double y = std::exp(static_cast<double>(x));
    const double ulps = fast_ ? DocumentedBounds::fast_exp_ulps(x) : DocumentedBounds::kExpfUlps;
    return R::round(pushed(y, ulps * ulp_f32(y), op.sign_at(y)));
  }
  T pow(T x, T y) const {
    if (y == 0) return 1;
    if (!fast_ || none_) {
      const double r = std::pow(static_cast<double>(x), static_cast<double>(y));
      return R::round(pushed(r, DocumentedBounds::kPowfUlps * ulp_f32(r), op.sign_at(r)));
    }
    // __powf(x, y) = ex2.approx(y * lg2.approx(x)): the product rounded to float (mul.rn.f32).
    // A larger log2 gives a larger result (y >= 0 here), so both are pushed the same way.
    const double l = std::log2(static_cast<double>(x));
    const double lb = (x >= 0.5f && x <= 2.0f) ? DocumentedBounds::fast_log2_abs()
                                               : DocumentedBounds::kLog2fUlps * ulp_f32(l);
    const float t = mul_rn(y, pushed(l, lb, op.sign));
    const double r = std::exp2(static_cast<double>(t));
    return R::round(pushed(r, DocumentedBounds::kExp2fUlps * ulp_f32(r), op.sign_at(r)));
  }
  bool fast() const { return fast_; }

  mutable Push sin_push, cos_push, op;  // set by the caller before each call

 private:
  float pushed(double y, double bound, int sign) const {
    return none_ ? static_cast<float>(y) : bound_edge(y, bound, sign);
  }
  bool fast_, none_;
};

}  // namespace pev::core::cuda::model
