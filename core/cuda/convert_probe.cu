#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "peverify/core/cuda/convert_probe.h"

namespace pev::core::cuda {
namespace {

__global__ void floats_kernel(uint32_t first, uint32_t n, uint16_t* f16, uint16_t* bf16) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float x = __uint_as_float(first + i);
    f16[i] = __half_as_ushort(__float2half_rn(x));
    bf16[i] = __bfloat16_as_ushort(__float2bfloat16_rn(x));
  }
}

__global__ void doubles_kernel(const double* in, size_t n, uint16_t* f16, uint16_t* bf16,
                               float* f32) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    f16[i] = __half_as_ushort(__double2half(in[i]));
    bf16[i] = __bfloat16_as_ushort(__double2bfloat16(in[i]));
    f32[i] = __double2float_rn(in[i]);
  }
}

template <class T>
struct Device {
  T* p = nullptr;
  cudaError_t e;
  explicit Device(size_t n) { e = cudaMalloc(&p, n * sizeof(T) + 1); }
  ~Device() { cudaFree(p); }
};

}  // namespace

int convert_floats_on_device(uint32_t first, uint32_t n, uint16_t* f16, uint16_t* bf16) {
  Device<uint16_t> a(n), b(n);
  if (a.e != cudaSuccess || b.e != cudaSuccess) return a.e != cudaSuccess ? a.e : b.e;
  floats_kernel<<<1024, 256>>>(first, n, a.p, b.p);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(f16, a.p, n * sizeof(uint16_t), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(bf16, b.p, n * sizeof(uint16_t), cudaMemcpyDeviceToHost);
  return e;
}

int convert_doubles_on_device(const double* in, size_t n, uint16_t* f16, uint16_t* bf16,
                              float* f32) {
  Device<double> d(n);
  Device<uint16_t> a(n), b(n);
  Device<float> c(n);
  for (cudaError_t e : {d.e, a.e, b.e, c.e})
    if (e != cudaSuccess) return e;
  cudaError_t e = cudaMemcpy(d.p, in, n * sizeof(double), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    doubles_kernel<<<256, 256>>>(d.p, n, a.p, b.p, c.p);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(f16, a.p, n * sizeof(uint16_t), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(bf16, b.p, n * sizeof(uint16_t), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(f32, c.p, n * sizeof(float), cudaMemcpyDeviceToHost);
  return e;
}

}  // namespace pev::core::cuda
