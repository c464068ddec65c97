// Built when CUDA is off (PEV_ENABLE_CUDA=OFF, or AUTO without nvcc): no CUDA entries, no CUDA
// rotations, no device to time.
#include <stdexcept>

#include "peverify/core/cuda/device_timing.h"
#include "peverify/core/registry_modules.h"
#include "peverify/core/rotation/rotation_entries.h"

namespace pev::core {

void add_cuda_entries(std::vector<Implementation>&) {}
void rotation_internal::add_cuda_rotations(std::vector<RotationImplementation>&) {}

namespace cuda {

std::optional<DeviceDescription> describe_device() { return std::nullopt; }

namespace {
[[noreturn]] void no_cuda() {
  throw std::runtime_error("peverify was built without CUDA (no nvcc when it was configured)");
}
}  // namespace

std::vector<double> time_table_kernels(const Implementation&, const TableSpec&, uint64_t, int) {
  no_cuda();
}
std::vector<double> time_rotation_kernel(const RotationImplementation&, const RotationSpec&,
                                         uint64_t, int, int) {
  no_cuda();
}
StoreTimes time_device_stores(uint64_t, int) { no_cuda(); }

}  // namespace cuda
}  // namespace pev::core
