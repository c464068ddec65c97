// The device store roofline's kernel, read in PTX without a GPU: it must be the fastest plain
// store a kernel makes (16-byte vector stores to global memory, nothing read), or the roofline
// the CUDA entries are measured against would flatter them.
#include <gtest/gtest.h>

#include "peverify/core/cuda/ptx_reader.h"

namespace pev::core::cuda {
namespace {

TEST(StoreRooflinePtx, SixteenByteStoresAndNoLoads) {
  const Ptx ptx(PEV_STORE_PTX_FILES);
  const std::vector<std::string> kernels = ptx.kernels_matching("store_pattern");
  ASSERT_EQ(kernels.size(), 1u);
  const std::string code = ptx.code(kernels[0]);
  EXPECT_TRUE(has(code, "st.global.v4.u32")) << code;
  EXPECT_FALSE(has(code, "ld.global")) << code;
}

}  // namespace
}  // namespace pev::core::cuda
