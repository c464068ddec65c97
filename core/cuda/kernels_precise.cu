// The precise strategy on the device: every element evaluated directly in double-double
// (direct_double.h, the anchor formula of core/precise), multiplied by the recipe's attention
// factor in double, and rounded once to the output type.
#include <cuda_runtime.h>

#include "peverify/core/cuda/direct_double.h"
#include "peverify/core/cuda/kernels.cuh"

namespace pev::core::cuda {
namespace {

__global__ void precise_rows(Rows t, const double* w_hi, const double* w_lo) {
  const uint64_t n = t.count * static_cast<uint64_t>(t.half);
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const uint64_t row = i / t.half;
    const int k = static_cast<int>(i % t.half);
    double s, c;
    precise_direct::direct_sincos(double_of_position(t.start + row), w_hi[k], w_lo[k], s, c);
    if (scales_values(t.recipe)) {
      s = mul_rn(s, t.recipe.attention);
      c = mul_rn(c, t.recipe.attention);
    }
    store_pair(t, row, k, s, c);
  }
}

}  // namespace

int run_precise(const Request& r) {
  constexpr int kThreads = 256;
  const Rows t = rows_of(r);
  precise_rows<<<blocks_for(t.count * t.half, kThreads), kThreads>>>(t, r.w_hi, r.w_lo);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace pev::core::cuda
