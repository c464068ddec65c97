// The device's description and its store roofline (device_timing.h); the entries' timers are
// beside their kernels' host sides (cuda_entries.cc, cuda_rotations.cc).
#include "peverify/core/cuda/device_timing.h"

#include <cuda_runtime_api.h>

#include <string>

#include "peverify/core/cuda/device_buffer.h"
#include "peverify/core/cuda/store_launch.h"

namespace pev::core::cuda {
namespace {

// 13000 -> "13.0", as nvidia-smi prints CUDA versions.
std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

}  // namespace

std::optional<DeviceDescription> describe_device() {
  if (!device_present()) return std::nullopt;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return std::nullopt;
  DeviceDescription d;
  d.name = p.name;
  d.compute_major = p.major;
  d.compute_minor = p.minor;
  d.memory_bytes = p.totalGlobalMem;
  d.multiprocessors = p.multiProcessorCount;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  d.driver = cuda_version_text(driver);
  d.runtime = cuda_version_text(runtime);
  return d;
}

StoreTimes time_device_stores(uint64_t bytes, int repetitions) {
  const std::string what = "the device store roofline";
  if (!device_present()) throw std::runtime_error(what + ": no CUDA device");
  bytes -= bytes % 16;
  DeviceBuffer buffer(bytes, what);
  StoreTimes t;
  t.bytes = bytes;
  // Non-zero bytes: a zero fill may take a faster path than real data gets.
  t.memset_seconds = time_repetitions(
      what, repetitions, [&] { check(cudaMemset(buffer.get(), 0x5a, bytes), what, "cudaMemset"); });
  t.kernel_seconds = time_repetitions(what, repetitions, [&] {
    check(static_cast<cudaError_t>(run_store(buffer.get(), bytes, 0x3f5a5a5au)), what,
          "store kernel launch");
  });
  return t;
}

}  // namespace pev::core::cuda
