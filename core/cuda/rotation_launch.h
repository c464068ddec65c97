// What the host side of the CUDA rotations (cuda_rotations.cc, g++) asks of their kernels
// (rotation_kernels.cu, nvcc): rotate the rotary dims of q, already in device memory, in place of
// a copy of it (the pass-through dims are the copy's).
#pragma once

#include <cstdint>

#include "peverify/core/recipe_arith.h"

namespace pev::core::cuda {

// How an entry gets each pair's A cos, A sin and rounds the rotation (docs/features.md §15.4).
enum class RotationKernel : uint8_t {
  kCacheFloat32Fma,  // a float32 cache; out_a = fma(x_a, c, -(x_b s)) in float32
  kCacheBFloat16,    // the float32 cache cast to bfloat16; each product and the sum in bfloat16
  kFusedFloat32Fma,  // angle fl(p w_j), sincosf, times A in float32; products as kCacheFloat32Fma
  kPreciseFloat32,   // core/rotation/precise_rotation.h in double; uncertified elements flagged
};

struct RotationRequest {
  RotationKernel kernel = RotationKernel::kCacheFloat32Fma;
  bool bfloat16_io = false;  // q and the output: bfloat16 bit patterns, else float32
  bool interleaved = false;  // pairs (2j, 2j + 1), else (j, j + d/2)
  uint64_t tokens = 0;
  int heads = 0, head_dim = 0, d = 0;  // d: the rotary dimension
  const void* x = nullptr;             // device: tokens x heads x head_dim
  void* out = nullptr;                 // device: the same shape, pass-through dims already set
  // Cache kernels: tokens x d floats, [A cos of every pair | A sin of every pair] per token.
  const float* cache = nullptr;
  // The fused kernel: w_j (float32, d/2), each token's position per stream (streams x tokens),
  // and each pair's stream (d/2 bytes; all 0 but for M-RoPE).
  const float* w = nullptr;
  const uint64_t* positions = nullptr;
  const uint8_t* pair_stream = nullptr;
  RecipeScalars recipe;  // its attention factor (nothing else is read on the device)
  // The precise kernel: double-double w_j (d/2 each), their error bound and A in double, and one
  // byte per element of out set where double did not certify it (the host recomputes those).
  const double* w_hi = nullptr;
  const double* w_lo = nullptr;
  double e_w = 0, attention = 1;
  uint8_t* uncertified = nullptr;
};

// Launches the request's kernel on the default stream; the cudaError_t of the launch.
int run_rotation(const RotationRequest& r);

}  // namespace pev::core::cuda
