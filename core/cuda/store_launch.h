// What device_timing.cc (g++) asks of store_kernel.cu (nvcc): the store roofline's kernel.
#pragma once

#include <cstdint>

namespace pev::core::cuda {

// Writes the 32-bit `word` over `bytes` (a multiple of 16) of device memory at `out` (16-byte
// aligned), on the default stream; the cudaError_t of the launch.
int run_store(void* out, uint64_t bytes, uint32_t word);

}  // namespace pev::core::cuda
