// What every CUDA entry's host side needs (g++, cuda_runtime_api.h only): the device flags, whether
// a device the kernels run on is here, errors as exceptions naming the entry, and device memory
// freed on every path.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

// The device flags as the build spells them, for the entries' `flags` (core/cuda/CMakeLists.txt
// defines PEV_CUDA_FLAGS on the files that describe entries).
#ifndef PEV_CUDA_FLAGS
#define PEV_CUDA_FLAGS "nvcc"
#endif

namespace pev::core::cuda {

// A device of compute capability 8.0 or newer (the kernels are built for sm_80 and sm_90, with
// sm_90 PTX for later GPUs). No driver, no device or an older one: "no CUDA device".
inline bool device_present() {
  static const bool present = [] {
    int n = 0, major = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 &&
           cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess &&
           major >= 8;
  }();
  return present;
}

inline void check(cudaError_t e, const std::string& entry, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(entry + ": " + what + ": " + cudaGetErrorString(e));
}

class DeviceBuffer {
 public:
  DeviceBuffer(size_t bytes, const std::string& entry) {
    check(cudaMalloc(&p_, std::max<size_t>(bytes, 1)), entry, "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// Runs `launch` (which enqueues work on the default stream) once to warm up, then `repetitions`
// times, each between two CUDA events: the device's seconds of each repetition. Every launch
// error and the first asynchronous fault are thrown, naming `what`.
template <class Launch>
std::vector<double> time_repetitions(const std::string& what, int repetitions, Launch launch) {
  cudaEvent_t begin = nullptr, end = nullptr;
  check(cudaEventCreate(&begin), what, "cudaEventCreate");
  check(cudaEventCreate(&end), what, "cudaEventCreate");
  std::vector<double> seconds;
  try {
    launch();
    check(cudaDeviceSynchronize(), what, "warm-up");
    for (int i = 0; i < repetitions; ++i) {
      check(cudaEventRecord(begin), what, "cudaEventRecord");
      launch();
      check(cudaEventRecord(end), what, "cudaEventRecord");
      check(cudaEventSynchronize(end), what, "kernel");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, begin, end), what, "cudaEventElapsedTime");
      seconds.push_back(ms * 1e-3);
    }
  } catch (...) {
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    throw;
  }
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  return seconds;
}

}  // namespace pev::core::cuda
