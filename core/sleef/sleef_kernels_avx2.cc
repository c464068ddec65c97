// SLEEF kernels for AVX2 with FMA: this file alone is compiled with -mavx2 -mfma.
#include <immintrin.h>
#include <sleef.h>

#include "peverify/core/sleef/sleef_kernels_inl.h"

namespace pev::core::sleef_internal {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr size_t kLanes = 8;
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V set(float x) { return _mm256_set1_ps(x); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  static V pow_u10(V x, V y) { return Sleef_powf8_u10avx2(x, y); }
  static V exp_u10(V x) { return Sleef_expf8_u10avx2(x); }
  static Sleef___m256_2 sincos_u10(V x) { return Sleef_sincosf8_u10avx2(x); }
  static Sleef___m256_2 sincos_u35(V x) { return Sleef_sincosf8_u35avx2(x); }
};

constexpr Kernels kKernels = make_kernels<Avx2>("avx2");

}  // namespace

const Kernels& avx2_kernels() { return kKernels; }

}  // namespace pev::core::sleef_internal
