// SLEEF kernels for AVX-512F: this file alone is compiled with -mavx512f (see CMakeLists.txt).
#include <immintrin.h>
#include <sleef.h>

#include "peverify/core/sleef/sleef_kernels_inl.h"

namespace pev::core::sleef_internal {
namespace {

struct Avx512f {
  using V = __m512;
  static constexpr size_t kLanes = 16;
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V set(float x) { return _mm512_set1_ps(x); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V div(V a, V b) { return _mm512_div_ps(a, b); }
  static V pow_u10(V x, V y) { return Sleef_powf16_u10avx512f(x, y); }
  static V exp_u10(V x) { return Sleef_expf16_u10avx512f(x); }
  static Sleef___m512_2 sincos_u10(V x) { return Sleef_sincosf16_u10avx512f(x); }
  static Sleef___m512_2 sincos_u35(V x) { return Sleef_sincosf16_u35avx512f(x); }
};

constexpr Kernels kKernels = make_kernels<Avx512f>("avx512f");

}  // namespace

const Kernels& avx512f_kernels() { return kKernels; }

}  // namespace pev::core::sleef_internal
