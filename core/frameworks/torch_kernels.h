// Internal to core/frameworks: PyTorch's CPU elementwise kernels as its 1.13-2.x x86-64 builds
// run them, so that an entry can reproduce a framework's table bit for bit (docs/architecture.md
// §10.1). At the AVX2 capability (pytorch/pytorch aten/src/ATen/cpu/vec/vec256/vec256_float.h and
// vec256_double.h), Vectorized::pow, sin, cos and exp are SLEEF's 1-ulp vector functions
// (Sleef_powf8_u10, Sleef_sinf8_u10, Sleef_cosf8_u10, Sleef_expf8_u10 and the double variants),
// on groups of 8 floats or 4 doubles taken from the start of the contiguous tensor. Two loops
// decide which lanes share a vector, and SLEEF picks its argument reduction per vector:
// - unary ops (vml::vsin, vexp: vec::map) run whole vectors, then one partial vector whose
//   missing lanes are zero (Vectorized::loadu(ptr, count));
// - binary ops with a scalar operand (pow: cpu_kernel_vec's vectorized_loop) run two vectors at
//   a time and the rest through the scalar lambda, std::pow.
// At the default capability (no AVX2) every lane is the scalar libm function.
// Hand-written: no library reproduces another library's lane grouping.
#pragma once

#include <cstddef>
#include <string_view>

namespace pev::core::torch_internal {

struct TorchKernels {
  std::string_view capability;  // "avx2" or "default", as torch.backends.cpu reports it
  // out[i] = base^e[i] (torch.pow(scalar, tensor)).
  void (*pow_f32)(float base, const float* e, float* out, size_t n);
  void (*pow_f64)(double base, const double* e, double* out, size_t n);
  // out[i] = f(in[i]) over one contiguous run of n elements (tensor.exp(), .sin(), .cos()).
  void (*exp_f32)(const float* in, float* out, size_t n);
  void (*sin_f32)(const float* in, float* out, size_t n);
  void (*cos_f32)(const float* in, float* out, size_t n);
  void (*sin_f64)(const double* in, double* out, size_t n);
  void (*cos_f64)(const double* in, double* out, size_t n);
};

// Defined in torch_kernels_avx2.cc (built with -mavx2 -mfma); call only on a CPU with both.
const TorchKernels& avx2_torch_kernels();
// The kernels PyTorch runs on this CPU: AVX2 when it has AVX2 and FMA, else the default.
const TorchKernels& torch_kernels();

}  // namespace pev::core::torch_internal
