// The PTX of the CUDA rotations (rotation_kernels.cu), read without a GPU: no fast math anywhere
// (no approximate instruction, no flush to zero), the fused kernel reduces its angles as the
// accurate sincosf does, the float32 kernels round as their claim and host twin say (one product
// fused with the sum: fma.rn.f32), the precise kernel computes in double (fma.rn.f64) and rounds
// once (cvt.rn.f32.f64), the bfloat16 kernel rounds every product and the sum to
// bfloat16 with no FMA, and every kernel belongs to a registry entry.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "peverify/core/cuda/ptx_reader.h"
#include "peverify/core/rotation/rotation_registry.h"

namespace pev::core::cuda {
namespace {

const Ptx& rotation_ptx() {
  static const Ptx ptx(PEV_ROTATION_PTX_FILES);
  return ptx;
}

// The kernel each CUDA rotation runs (cuda_rotations.cc's RotationKernel).
const std::map<std::string, std::string>& kernel_of() {
  static const std::map<std::string, std::string> m = {
      {"cuda/rotate/cache-f32/f32", "rotate_cached<false>("},
      {"cuda/rotate/hf-bf16/bf16", "rotate_cached<true>("},
      {"cuda/rotate/fused-f32/f32/accurate", "rotate_fused("},
      {"cuda/rotate/precise/f32", "rotate_precise("},
  };
  return m;
}

std::string code_of(const std::string& entry) {
  const std::vector<std::string> found = rotation_ptx().kernels_matching(kernel_of().at(entry));
  EXPECT_EQ(found.size(), 1u) << entry;
  return found.empty() ? std::string() : rotation_ptx().code(found[0]);
}

TEST(RotationPtx, EveryCudaRotationHasItsKernelAndEveryKernelAnEntry) {
  std::set<std::string> used;
  int entries = 0;
  for (const RotationImplementation& e : rotation_registry()) {
    if (e.name.rfind("cuda/", 0) != 0) continue;
    ++entries;
    ASSERT_TRUE(kernel_of().count(e.name)) << e.name << " has no kernel in this test's table";
    for (const std::string& k : rotation_ptx().kernels_matching(kernel_of().at(e.name)))
      used.insert(k);
  }
  EXPECT_EQ(entries, static_cast<int>(kernel_of().size()));
  for (const std::string& k : rotation_ptx().kernels())
    EXPECT_TRUE(used.count(k)) << "no entry runs " << demangle(k);
}

TEST(RotationPtx, NoFastMathAndEachRoundingAsClaimed) {
  for (const auto& [entry, kernel] : kernel_of()) {
    const std::string code = code_of(entry);
    ASSERT_FALSE(code.empty()) << entry;
    EXPECT_FALSE(has(code, ".approx")) << entry;
    EXPECT_FALSE(has(code, ".ftz")) << entry;
    if (entry.find("precise") != std::string::npos) {
      // Double arithmetic with explicit FMA, rounded once to float32; no math library.
      EXPECT_TRUE(has(code, "fma.rn.f64")) << entry;
      EXPECT_TRUE(has(code, "cvt.rn.f32.f64")) << entry;
      EXPECT_FALSE(has(code, "fma.rn.f32")) << entry;
    } else if (entry.find("bf16") != std::string::npos) {
      EXPECT_FALSE(has(code, "fma.rn.f32")) << entry << ": a product fused into the sum";
      EXPECT_TRUE(has(code, "cvt.rn.bf16.f32")) << entry;
    } else {
      EXPECT_TRUE(has(code, "fma.rn.f32")) << entry;
      EXPECT_TRUE(has(code, "mul.rn.f32")) << entry;
    }
    // sincosf's Payne-Hanek reduction of large angles: the accurate path, not __sincosf.
    EXPECT_EQ(has(code, "__cudart_i2opi_f"), entry.find("fused") != std::string::npos) << entry;
  }
}

}  // namespace
}  // namespace pev::core::cuda
