// The kernels with the CUDA math library's accurate functions (sincosf, expf, powf). Must contain
// no approximate instruction of the fast path: core/cuda/ptx_test.cc checks its PTX.
#include "peverify/core/cuda/kernels.cuh"

namespace pev::core::cuda {

int run_accurate(const Request& r) { return static_cast<int>(run_math<Accurate>(r)); }

}  // namespace pev::core::cuda
