// PyTorch's AVX2 kernels (torch_kernels.h): this file alone is compiled with -mavx2 -mfma.
#include <immintrin.h>
#include <math.h>
#include <sleef.h>

#include "peverify/core/frameworks/torch_kernels.h"
#include "peverify/core/frameworks/torch_kernels_inl.h"

namespace pev::core::torch_internal {
namespace {

struct Floats {
  using T = float;
  using Vec = __m256;
  static constexpr size_t kLanes = 8;
  static Vec load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
  static Vec set(float x) { return _mm256_set1_ps(x); }
  static Vec pow(Vec x, Vec y) { return Sleef_powf8_u10avx2(x, y); }
  static float scalar_pow(float x, float y) { return ::powf(x, y); }
  static Vec exp(Vec x) { return Sleef_expf8_u10avx2(x); }
  static Vec sin(Vec x) { return Sleef_sinf8_u10avx2(x); }
  static Vec cos(Vec x) { return Sleef_cosf8_u10avx2(x); }
};

struct Doubles {
  using T = double;
  using Vec = __m256d;
  static constexpr size_t kLanes = 4;
  static Vec load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, Vec v) { _mm256_storeu_pd(p, v); }
  static Vec set(double x) { return _mm256_set1_pd(x); }
  static Vec pow(Vec x, Vec y) { return Sleef_powd4_u10avx2(x, y); }
  static double scalar_pow(double x, double y) { return ::pow(x, y); }
  static Vec sin(Vec x) { return Sleef_sind4_u10avx2(x); }
  static Vec cos(Vec x) { return Sleef_cosd4_u10avx2(x); }
};

constexpr TorchKernels kAvx2{"avx2",
                             &pow_lanes<Floats, &Floats::pow>,
                             &pow_lanes<Doubles, &Doubles::pow>,
                             &map_lanes<Floats, &Floats::exp>,
                             &map_lanes<Floats, &Floats::sin>,
                             &map_lanes<Floats, &Floats::cos>,
                             &map_lanes<Doubles, &Doubles::sin>,
                             &map_lanes<Doubles, &Doubles::cos>};

}  // namespace

const TorchKernels& avx2_torch_kernels() { return kAvx2; }

}  // namespace pev::core::torch_internal
