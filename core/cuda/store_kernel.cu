// The device store roofline's kernel (device_timing.h): a plain grid-stride loop of 16-byte
// stores of one non-zero pattern, the fastest way a kernel writes memory, for the table kernels'
// speed to be read against.
#include <cuda_runtime.h>

#include <algorithm>

#include "peverify/core/cuda/store_launch.h"

namespace pev::core::cuda {
namespace {

__global__ void store_pattern(uint4* out, uint64_t n, uint4 pattern) {
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x)
    out[i] = pattern;
}

}  // namespace

int run_store(void* out, uint64_t bytes, uint32_t word) {
  constexpr int kThreads = 256;
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const uint64_t n = bytes / sizeof(uint4);
  // Enough blocks to fill every multiprocessor many times over; the loop covers the rest.
  const uint64_t blocks = std::min<uint64_t>((n + kThreads - 1) / kThreads, uint64_t{32} * sms);
  store_pattern<<<static_cast<unsigned>(std::max<uint64_t>(blocks, 1)), kThreads>>>(
      static_cast<uint4*>(out), n, make_uint4(word, word, word, word));
  return static_cast<int>(cudaGetLastError());
}

}  // namespace pev::core::cuda
