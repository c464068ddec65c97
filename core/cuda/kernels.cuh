// The CUDA kernels of every strategy, templated over the device arithmetic (device_math.cuh).
// Each kernels_*.cu instantiates them for one math backend. The formulas are the shared ones
// (shared_arith.h, and core/recipe_arith.h for the rotary recipes, applied to the frequencies
// once per pair and to the values as they are stored); only the thread layout is the device's:
//   - pow, logspace: one thread per (row, pair), the frequencies computed once per pair first;
//   - recurrence: one thread per pair walking every position from 0 (row p costs p steps,
//     whatever the start, as on the CPU), anchored: one per (pair, anchor interval).
#pragma once

#include <cuda_runtime.h>

#include "peverify/core/cuda/device_math.cuh"
#include "peverify/core/cuda/launch.h"
#include "peverify/core/cuda/shared_arith.h"
#include "peverify/core/recipe_arith.h"

namespace pev::core::cuda {

// What every row kernel needs to place an element.
struct Rows {
  uint64_t start, count;
  int d_model, half, width;
  Layout layout;
  Dtype output;
  void* table;
  RecipeScalars recipe;  // its attention factor scales what is stored
};

inline Rows rows_of(const Request& r) {
  return {r.start,  r.count,  r.d_model, r.d_model / 2, r.width,
          r.layout, r.output, r.table,   r.recipe};
}

// A s and A c in the compute type (nothing when A = 1), then stored.
template <class A>
__device__ inline void store_scaled(const A& a, const Rows& t, uint64_t row, int k, typename A::T s,
                                    typename A::T c) {
  if (scales_values(t.recipe)) {
    s = attention_scaled(a, t.recipe, s);
    c = attention_scaled(a, t.recipe, c);
  }
  store_pair(t, row, k, s, c);
}

template <class V>
__device__ inline void store_pair(const Rows& t, uint64_t row, int k, V s, V c) {
  const Columns col = columns_of(t.layout, t.half, k);
  const uint64_t base = row * static_cast<uint64_t>(t.width);
  if (col.sin0 >= 0) store_element(t.table, t.output, base + col.sin0, s);
  if (col.sin1 >= 0) store_element(t.table, t.output, base + col.sin1, s);
  if (col.cos0 >= 0) store_element(t.table, t.output, base + col.cos0, c);
  if (col.cos1 >= 0) store_element(t.table, t.output, base + col.cos1, c);
}

// b^(2k/d), or with a recipe its frequency w_k.
template <class A>
__global__ void pow_frequencies(int d_model, Schedule schedule, double base, RecipeScalars recipe,
                                float* f) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= d_model / 2) return;
  const A a;
  f[k] = recipe_frequency(a, recipe, k, pow_denominator(a, base, exponent_of(d_model, schedule, k)),
                          true);
}

// w_k (the recipe's), and sin w_k, cos w_k for the rotation strategies.
template <class A>
__global__ void logspace_frequencies(int d_model, Schedule schedule, double step,
                                     RecipeScalars recipe, float* w, float* s1, float* c1) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= d_model / 2) return;
  const A a;
  w[k] = recipe_frequency(a, recipe, k,
                          logspace_frequency(a, step, exponent_of(d_model, schedule, k)), false);
  if (s1) a.sincos(w[k], s1[k], c1[k]);
}

template <class A, bool kDivide>
__global__ void direct_rows(Rows t, const float* f) {
  const A a;
  const uint64_t n = t.count * static_cast<uint64_t>(t.half);
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const uint64_t row = i / t.half;
    const int k = static_cast<int>(i % t.half);
    float s, c;
    a.sincos(direct_angle(a, kDivide, a.from_position(t.start + row), f[k]), s, c);
    store_scaled(a, t, row, k, s, c);
  }
}

// Segment `blockIdx.y` of pair k: rows from an anchor (a multiple of `interval`, or position 0
// for the recurrence) computed directly, then rotated by M_1 once per row.
template <class A>
__global__ void rotation_rows(Rows t, uint64_t interval, const float* w, const float* s1,
                              const float* c1) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= t.half) return;
  const A a;
  const uint64_t end = t.start + t.count;
  uint64_t pos = interval ? t.start - t.start % interval + blockIdx.y * interval : 0;
  const uint64_t stop = interval ? (pos + interval < end ? pos + interval : end) : end;
  float s, c;
  a.sincos(a.mul(a.from_position(pos), w[k]), s, c);
  for (; pos < stop; ++pos) {
    if (pos >= t.start) store_scaled(a, t, pos - t.start, k, s, c);
    rotate(a, s, c, s1[k], c1[k]);
  }
}

inline int blocks_for(uint64_t n, int threads) {
  const uint64_t b = (n + threads - 1) / threads;
  return static_cast<int>(b < 65535 ? (b ? b : 1) : 65535);  // grid-stride loops cover the rest
}

// The kernels of one request for compute arithmetic A.
template <class A>
cudaError_t run_float(const Request& r) {
  constexpr int kThreads = 256;
  const Rows t = rows_of(r);
  const int freq_blocks = (t.half + kThreads - 1) / kThreads;
  float* w = r.scratch;
  float* s1 = r.scratch + t.half;
  float* c1 = r.scratch + 2 * t.half;
  switch (r.strategy) {
    case Strategy::kPow:
      pow_frequencies<A><<<freq_blocks, kThreads>>>(r.d_model, r.schedule, r.base, r.recipe, w);
      if (angle_divides(true, r.recipe))
        direct_rows<A, true><<<blocks_for(t.count * t.half, kThreads), kThreads>>>(t, w);
      else
        direct_rows<A, false><<<blocks_for(t.count * t.half, kThreads), kThreads>>>(t, w);
      break;
    case Strategy::kLogspace:
      logspace_frequencies<A>
          <<<freq_blocks, kThreads>>>(r.d_model, r.schedule, r.step, r.recipe, w, nullptr, nullptr);
      direct_rows<A, false><<<blocks_for(t.count * t.half, kThreads), kThreads>>>(t, w);
      break;
    case Strategy::kRecurrence:
    case Strategy::kAnchored: {
      logspace_frequencies<A>
          <<<freq_blocks, kThreads>>>(r.d_model, r.schedule, r.step, r.recipe, w, s1, c1);
      const uint64_t interval = r.strategy == Strategy::kAnchored ? r.anchor_interval : 0;
      const uint64_t first = interval ? r.start - r.start % interval : 0;
      const uint64_t segments =
          interval ? (r.start + r.count - first + interval - 1) / interval : 1;
      if (segments > 65535) return cudaErrorInvalidConfiguration;  // callers split larger fills
      const dim3 grid(freq_blocks, static_cast<unsigned>(segments));
      rotation_rows<A><<<grid, kThreads>>>(t, interval, w, s1, c1);
      break;
    }
    case Strategy::kPrecise:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <class Math>
cudaError_t run_math(const Request& r) {
  switch (r.compute) {
    case Dtype::kFloat32:
      return run_float<F32<Math>>(r);
    case Dtype::kFloat16:
      return run_float<F16<Math>>(r);
    case Dtype::kBFloat16:
      return run_float<BF16<Math>>(r);
    case Dtype::kFloat64:
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace pev::core::cuda
