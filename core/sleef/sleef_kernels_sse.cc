// SLEEF kernels on 128-bit vectors, for CPUs without AVX2. This file is compiled for the x86-64
// baseline (SSE2): our own code here uses SSE2 only, and SLEEF's SSE4.1 functions are called only
// when the CPU has SSE4.1 (sleef_dispatch.cc checks).
#include <emmintrin.h>
#include <sleef.h>

#include "peverify/core/sleef/sleef_kernels_inl.h"

namespace pev::core::sleef_internal {
namespace {

struct Sse {
  using V = __m128;
  static constexpr size_t kLanes = 4;
  static V load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, V v) { _mm_storeu_ps(p, v); }
  static V set(float x) { return _mm_set1_ps(x); }
  static V mul(V a, V b) { return _mm_mul_ps(a, b); }
  static V div(V a, V b) { return _mm_div_ps(a, b); }
};

struct Sse4 : Sse {
  static V pow_u10(V x, V y) { return Sleef_powf4_u10sse4(x, y); }
  static V exp_u10(V x) { return Sleef_expf4_u10sse4(x); }
  static Sleef___m128_2 sincos_u10(V x) { return Sleef_sincosf4_u10sse4(x); }
  static Sleef___m128_2 sincos_u35(V x) { return Sleef_sincosf4_u35sse4(x); }
};

struct Sse2 : Sse {
  static V pow_u10(V x, V y) { return Sleef_powf4_u10sse2(x, y); }
  static V exp_u10(V x) { return Sleef_expf4_u10sse2(x); }
  static Sleef___m128_2 sincos_u10(V x) { return Sleef_sincosf4_u10sse2(x); }
  static Sleef___m128_2 sincos_u35(V x) { return Sleef_sincosf4_u35sse2(x); }
};

constexpr Kernels kSse4 = make_kernels<Sse4>("sse4");
constexpr Kernels kSse2 = make_kernels<Sse2>("sse2");

}  // namespace

const Kernels& sse4_kernels() { return kSse4; }
const Kernels& sse2_kernels() { return kSse2; }

}  // namespace pev::core::sleef_internal
