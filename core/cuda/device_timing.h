// The CUDA entries timed on the device (docs/architecture.md §11.2): each entry's kernels alone,
// writing into device memory with no copy to the host, timed with CUDA events; and the device's
// store roofline over the same buffer, measured in the same run. Without a device (or built without
// nvcc) describe_device() is empty and the timers throw std::runtime_error saying why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "peverify/core/implementation.h"
#include "peverify/core/rotation/rotation_registry.h"
#include "peverify/encoding/rotation.h"
#include "peverify/encoding/spec.h"

namespace pev::core::cuda {

struct DeviceDescription {
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int compute_major = 0, compute_minor = 0;
  std::string driver, runtime;  // CUDA versions, "13.0"
  uint64_t memory_bytes = 0;
  int multiprocessors = 0;
};

// The device the entries run on (device 0), or nullopt: none of compute capability 8.0 or newer.
std::optional<DeviceDescription> describe_device();

// Seconds of each repetition (after one warm-up) of the kernels of a CUDA table entry filling
// `rows` rows of `spec` from spec.start, in as many launches as the entry's fill makes.
std::vector<double> time_table_kernels(const Implementation& e, const TableSpec& spec,
                                       uint64_t rows, int repetitions);

// Seconds of each repetition of a CUDA rotation's kernel on `tokens` tokens x `heads` heads of
// q (random values in [-1, 1)), positions 0 .. tokens - 1. The precise kernel's host recompute of
// uncertified elements is not timed (it is rare, and done on the host).
std::vector<double> time_rotation_kernel(const RotationImplementation& e, const RotationSpec& spec,
                                         uint64_t tokens, int heads, int repetitions);

// The store roofline: seconds of each repetition of cudaMemset (a non-zero byte) and of a plain
// store kernel (16-byte stores, a non-zero pattern) over one buffer of `bytes`.
struct StoreTimes {
  uint64_t bytes = 0;
  std::vector<double> memset_seconds, kernel_seconds;
};
StoreTimes time_device_stores(uint64_t bytes, int repetitions);

}  // namespace pev::core::cuda
