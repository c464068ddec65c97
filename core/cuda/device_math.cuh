// The device side of the shared arithmetic (shared_arith.h): the math backends and the compute
// types. Accurate calls the CUDA math library (sincosf, expf, powf: 2, 2 and 4 ulp per the CUDA
// Programming Guide) and divides correctly rounded; Fast calls the intrinsics -use_fast_math
// substitutes (__sincosf, __expf, __powf, __fdividef) explicitly, so the file is compiled without
// -use_fast_math and the choice is visible in the source and in the PTX (core/cuda/ptx_test.cc).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "peverify/core/cuda/shared_arith.h"

namespace pev::core::cuda {

struct Accurate {
  static __device__ void sincos(float x, float& s, float& c) { sincosf(x, &s, &c); }
  static __device__ float exp(float x) { return expf(x); }
  static __device__ float pow(float x, float y) { return powf(x, y); }
  static __device__ float div(float x, float y) { return __fdiv_rn(x, y); }
};

struct Fast {
  static __device__ void sincos(float x, float& s, float& c) { __sincosf(x, &s, &c); }
  static __device__ float exp(float x) { return __expf(x); }
  static __device__ float pow(float x, float y) { return __powf(x, y); }
  // -use_fast_math also turns '/' into an approximate division (-prec-div=false).
  static __device__ float div(float x, float y) { return __fdividef(x, y); }
};

// float32 compute.
template <class Math>
struct F32 {
  using T = float;
  __device__ T from_double(double x) const { return float_of(x); }
  __device__ T from_position(uint64_t p) const { return float_of_position(p); }
  __device__ T add(T a, T b) const { return add_rn(a, b); }
  __device__ T sub(T a, T b) const { return sub_rn(a, b); }
  __device__ T mul(T a, T b) const { return mul_rn(a, b); }
  __device__ T div(T a, T b) const { return Math::div(a, b); }
  __device__ void sincos(T x, T& s, T& c) const { Math::sincos(x, s, c); }
  __device__ T exp(T x) const { return Math::exp(x); }
  __device__ T pow(T x, T y) const { return Math::pow(x, y); }
};

struct HalfRounding {
  static __device__ float round(float x) { return __half2float(__float2half_rn(x)); }
};
struct BFloat16Rounding {
  static __device__ float round(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
};

// "Native" float16 / bfloat16 compute as PyTorch's CUDA kernels do it: each operation in float
// (opmath), its result rounded to the low type. For +, -, *, / this equals the correctly rounded
// low-precision operation (float's 24 bits >= 2p + 2), and it is what glibc/compute_type.h's
// Narrow does on the CPU. (cuda_fp16's __hdiv is not used: it divides with rcp.approx.)
template <class Math, class Rounding>
struct Narrow {
  using T = float;
  __device__ T from_double(double x) const { return Rounding::round(float_of(x)); }
  __device__ T from_position(uint64_t p) const { return Rounding::round(float_of_position(p)); }
  __device__ T add(T a, T b) const { return Rounding::round(add_rn(a, b)); }
  __device__ T sub(T a, T b) const { return Rounding::round(sub_rn(a, b)); }
  __device__ T mul(T a, T b) const { return Rounding::round(mul_rn(a, b)); }
  __device__ T div(T a, T b) const { return Rounding::round(Math::div(a, b)); }
  __device__ void sincos(T x, T& s, T& c) const {
    Math::sincos(x, s, c);
    s = Rounding::round(s);
    c = Rounding::round(c);
  }
  __device__ T exp(T x) const { return Rounding::round(Math::exp(x)); }
  __device__ T pow(T x, T y) const { return Rounding::round(Math::pow(x, y)); }
};

template <class Math>
using F16 = Narrow<Math, HalfRounding>;
template <class Math>
using BF16 = Narrow<Math, BFloat16Rounding>;

// Stores one element in the table's output type: float, or the bit pattern of the round-to-
// nearest-even float16 / bfloat16 (cvt.rn.f16.f32, cvt.rn.bf16.f32; from double in one rounding:
// cvt.rn.f16.f64 and, before sm_90, cuda_bf16's round-to-odd float step).
__device__ inline void store_element(void* table, Dtype output, uint64_t index, float v) {
  if (output == Dtype::kFloat32) {
    static_cast<float*>(table)[index] = v;
  } else if (output == Dtype::kFloat16) {
    static_cast<__half*>(table)[index] = __float2half_rn(v);
  } else {
    static_cast<__nv_bfloat16*>(table)[index] = __float2bfloat16_rn(v);
  }
}
__device__ inline void store_element(void* table, Dtype output, uint64_t index, double v) {
  if (output == Dtype::kFloat32) {
    static_cast<float*>(table)[index] = __double2float_rn(v);
  } else if (output == Dtype::kFloat16) {
    static_cast<__half*>(table)[index] = __double2half(v);
  } else {
    static_cast<__nv_bfloat16*>(table)[index] = __double2bfloat16(v);
  }
}

}  // namespace pev::core::cuda
