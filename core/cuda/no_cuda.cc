// Built when CUDA is off (PEV_ENABLE_CUDA=OFF, or AUTO without nvcc): no CUDA entries.
#include "core/registry_modules.h"

namespace pev::core {

void add_cuda_entries(std::vector<Implementation>&) {}

}  // namespace pev::core
