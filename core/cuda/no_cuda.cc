// Built when CUDA is off (PEV_ENABLE_CUDA=OFF, or AUTO without nvcc): no CUDA entries, no CUDA
// rotations.
#include "peverify/core/registry_modules.h"
#include "peverify/core/rotation/rotation_entries.h"

namespace pev::core {

void add_cuda_entries(std::vector<Implementation>&) {}
void rotation_internal::add_cuda_rotations(std::vector<RotationImplementation>&) {}

}  // namespace pev::core
