// The CUDA rotations of q and k: one thread per (token, pair), which takes the pair's A cos and
// A sin once (from the cache, or computed on the fly) and rotates it in every head, as vLLM's
// rotary_embedding and Transformer Engine's fused RoPE do. The products are written with
// explicit intrinsics (the project builds device code with -fmad=false), so the rounding of each
// entry is the one its host twin and its claim describe, whatever the compiler would contract.
#include <cuda_bf16.h>

#include "peverify/core/cuda/device_math.cuh"
#include "peverify/core/cuda/rotation_launch.h"
#include "peverify/core/rotation/precise_rotation.h"

namespace pev::core::cuda {
namespace {

__device__ inline float load(const RotationRequest& r, uint64_t i) {
  return r.bfloat16_io ? __bfloat162float(static_cast<const __nv_bfloat16*>(r.x)[i])
                       : static_cast<const float*>(r.x)[i];
}
__device__ inline void store(const RotationRequest& r, uint64_t i, float v) {
  if (r.bfloat16_io)
    static_cast<__nv_bfloat16*>(r.out)[i] = __float2bfloat16_rn(v);
  else
    static_cast<float*>(r.out)[i] = v;
}

// Rounds to bfloat16 and back: each operation of PyTorch's bfloat16 tensor arithmetic.
__device__ inline float bf16(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }

// Pair j's two dims within a head: (2j, 2j + 1) interleaved, else (j, j + d/2).
__device__ inline int dim_a(const RotationRequest& r, int j) { return r.interleaved ? 2 * j : j; }
__device__ inline int dim_b(const RotationRequest& r, int j) {
  return r.interleaved ? 2 * j + 1 : j + r.d / 2;
}

// Pair j rotated by c, s in every head of token t.
template <bool kBFloat16Math>
__device__ void rotate_pair(const RotationRequest& r, uint64_t t, int j, float c, float s) {
  const int a = dim_a(r, j), b = dim_b(r, j);
  for (int h = 0; h < r.heads; ++h) {
    const uint64_t base = (t * r.heads + h) * static_cast<uint64_t>(r.head_dim);
    const float xa = load(r, base + a), xb = load(r, base + b);
    if (kBFloat16Math) {
      store(r, base + a, bf16(__fsub_rn(bf16(__fmul_rn(xa, c)), bf16(__fmul_rn(xb, s)))));
      store(r, base + b, bf16(__fadd_rn(bf16(__fmul_rn(xb, c)), bf16(__fmul_rn(xa, s)))));
    } else {
      store(r, base + a, __fmaf_rn(xa, c, -__fmul_rn(xb, s)));
      store(r, base + b, __fmaf_rn(xb, c, __fmul_rn(xa, s)));
    }
  }
}

// f(token, pair) for every (token, pair) of the request: a grid-stride loop over all of them,
// one thread per pair of a token, which takes the pair's cos and sin once for every head.
template <class F>
__device__ void for_each_pair(const RotationRequest& r, F f) {
  const int pairs = r.d / 2;
  const uint64_t n = r.tokens * static_cast<uint64_t>(pairs);
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x)
    f(i / pairs, static_cast<int>(i % pairs));
}

template <bool kBFloat16Math>
__global__ void rotate_cached(RotationRequest r) {
  for_each_pair(r, [&](uint64_t t, int j) {
    float c = r.cache[t * r.d + j], s = r.cache[t * r.d + r.d / 2 + j];
    if (kBFloat16Math) {  // cos.to(q.dtype), sin.to(q.dtype)
      c = bf16(c);
      s = bf16(s);
    }
    rotate_pair<kBFloat16Math>(r, t, j, c, s);
  });
}

// sincosf of the float32 angle fl(p w_j) at the position of the pair's stream, times A.
__global__ void rotate_fused(RotationRequest r) {
  const F32<Accurate> a;
  for_each_pair(r, [&](uint64_t t, int j) {
    const uint64_t p = r.positions[r.pair_stream[j] * r.tokens + t];
    float s, c;
    a.sincos(a.mul(a.from_position(p), r.w[j]), s, c);
    if (scales_values(r.recipe)) {
      c = attention_scaled(a, r.recipe, c);
      s = attention_scaled(a, r.recipe, s);
    }
    rotate_pair<false>(r, t, j, c, s);
  });
}

// Our precise rotation in double (float32 in and out), the CPU entry's double path bit for bit.
__global__ void rotate_precise(RotationRequest r) {
  namespace pr = precise_rotation;
  for_each_pair(r, [&](uint64_t t, int j) {
    const double pos = __ull2double_rn(r.positions[r.pair_stream[j] * r.tokens + t]);
    const pr::PairTerms terms = pr::pair_terms(pos, r.w_hi[j], r.w_lo[j], r.e_w, r.attention);
    const int a = dim_a(r, j), b = dim_b(r, j);
    for (int h = 0; h < r.heads; ++h) {
      const uint64_t base = (t * r.heads + h) * static_cast<uint64_t>(r.head_dim);
      const double xa = static_cast<const float*>(r.x)[base + a];
      const double xb = static_cast<const float*>(r.x)[base + b];
      double ra, rb;
      r.uncertified[base + a] = !pr::rotate_double(terms, xa, xb, ra);
      r.uncertified[base + b] = !pr::rotate_double(terms, xb, -xa, rb);
      static_cast<float*>(r.out)[base + a] = __double2float_rn(ra);
      static_cast<float*>(r.out)[base + b] = __double2float_rn(rb);
    }
  });
}

}  // namespace

int run_rotation(const RotationRequest& r) {
  constexpr int kThreads = 256;
  const uint64_t n = r.tokens * static_cast<uint64_t>(r.d / 2);
  const uint64_t wanted = (n + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < 65535 ? (wanted ? wanted : 1) : 65535);
  switch (r.kernel) {
    case RotationKernel::kCacheFloat32Fma:
      rotate_cached<false><<<blocks, kThreads>>>(r);
      break;
    case RotationKernel::kCacheBFloat16:
      rotate_cached<true><<<blocks, kThreads>>>(r);
      break;
    case RotationKernel::kFusedFloat32Fma:
      rotate_fused<<<blocks, kThreads>>>(r);
      break;
    case RotationKernel::kPreciseFloat32:
      rotate_precise<<<blocks, kThreads>>>(r);
      break;
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace pev::core::cuda
