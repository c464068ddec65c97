// Device conversions for the tests (conversions_test.cc), run only where a CUDA device exists.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pev::core::cuda {

// float patterns first .. first + n - 1 through __float2half_rn and __float2bfloat16_rn on the
// device, into host arrays of n bit patterns. Returns the cudaError_t (0: success).
int convert_floats_on_device(uint32_t first, uint32_t n, uint16_t* f16, uint16_t* bf16);

// Doubles through __double2half, __double2bfloat16 and __double2float_rn on the device.
int convert_doubles_on_device(const double* in, size_t n, uint16_t* f16, uint16_t* bf16,
                              float* f32);

}  // namespace pev::core::cuda
