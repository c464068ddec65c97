// The kernels with the intrinsics -use_fast_math substitutes (__sincosf, __expf, __powf,
// __fdividef), called explicitly: this file is compiled with the same flags as the accurate one.
#include "peverify/core/cuda/kernels.cuh"

namespace pev::core::cuda {

int run_fast(const Request& r) { return static_cast<int>(run_math<Fast>(r)); }

}  // namespace pev::core::cuda
