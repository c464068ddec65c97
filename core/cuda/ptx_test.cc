// The PTX of every CUDA entry's kernels, read without a GPU: fast entries use the approximate
// instructions of __sincosf, __expf, __powf and __fdividef; accurate and precise entries use none
// (no fast math leaking into code that claims accuracy), and every kernel stores through the
// round-to-nearest-even conversions. A control build of the accurate kernels with -use_fast_math
// shows the check catches a leak.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "peverify/core/cuda/ptx_reader.h"
#include "peverify/core/registry.h"

namespace pev::core::cuda {
namespace {

const Ptx& built_ptx() {
  static const Ptx ptx(PEV_PTX_FILES);
  return ptx;
}

// Instructions that only fast math produces: the approximate transcendental and division
// instructions, and flush-to-zero arithmetic (-use_fast_math implies -ftz=true).
const std::regex& fast_math_instruction() {
  static const std::regex r(
      R"(\b(sin\.approx|cos\.approx|lg2\.approx|tanh\.approx|div\.approx|div\.full|ex2\.approx\.f32|(add|sub|mul|fma|div|sqrt|cvt)(\.\w+)*\.ftz))");
  return r;
}

// Accurate kernels: none of those. The CUDA math library's expf and powf themselves use
// ex2.approx.ftz and rcp.approx.ftz on reduced arguments (inside their 2 and 4 ulp), so the
// frequency kernels may contain exactly those; the row kernels call sincosf only, and contain no
// approximate instruction at all.
std::vector<std::string> accurate_violations(const std::string& code, bool frequency_kernel) {
  std::vector<std::string> bad;
  for (std::sregex_iterator it(code.begin(), code.end(), fast_math_instruction()), end; it != end;
       ++it)
    bad.push_back(it->str());
  if (!frequency_kernel && has(code, ".approx")) bad.push_back(".approx in a row kernel");
  return bad;
}

struct Kernel {
  std::string needle;  // a substring of the demangled name
  bool frequency;      // a frequency kernel (calls expf / powf), not a row kernel
  std::vector<std::string> fast_needs;
};

std::string arith_of(const Implementation& e) {
  const std::string math =
      e.backend == Backend::kCudaFast ? "pev::core::cuda::Fast" : "pev::core::cuda::Accurate";
  switch (e.compute) {
    case Dtype::kFloat16:
      return "pev::core::cuda::Narrow<" + math + ", pev::core::cuda::HalfRounding>";
    case Dtype::kBFloat16:
      return "pev::core::cuda::Narrow<" + math + ", pev::core::cuda::BFloat16Rounding>";
    default:
      return "pev::core::cuda::F32<" + math + ">";
  }
}

// The kernels an entry runs (kernels.cuh run_float, kernels_precise.cu), and the instructions
// its fast variant must show.
std::vector<Kernel> kernels_of(const Implementation& e) {
  const std::string a = arith_of(e);
  const std::vector<std::string> sincos = {"sin.approx.f32", "cos.approx.f32"};
  switch (e.strategy) {
    case Strategy::kPow:
      return {{"pev::core::cuda::pow_frequencies<" + a + ">(",
               true,
               {"lg2.approx.f32", "ex2.approx.f32", "div.approx.f32"}},
              {"pev::core::cuda::direct_rows<" + a + ", true>(",
               false,
               {"sin.approx.f32", "cos.approx.f32", "div.approx.f32"}}};
    case Strategy::kLogspace:
      return {{"pev::core::cuda::logspace_frequencies<" + a + ">(", true, {"ex2.approx.f32"}},
              {"pev::core::cuda::direct_rows<" + a + ", false>(", false, sincos}};
    case Strategy::kRecurrence:
    case Strategy::kAnchored:
      return {{"pev::core::cuda::logspace_frequencies<" + a + ">(",
               true,
               {"ex2.approx.f32", "sin.approx.f32", "cos.approx.f32"}},
              {"pev::core::cuda::rotation_rows<" + a + ">(", false, sincos}};
    case Strategy::kPrecise:
      return {{"precise_rows(", false, {}}};
  }
  return {};
}

std::vector<const Implementation*> cuda_entries() {
  std::vector<const Implementation*> out;
  for (const Implementation& e : registry())
    if (e.device == Device::kCuda) out.push_back(&e);
  return out;
}

class EntryPtx : public testing::TestWithParam<const Implementation*> {};

TEST_P(EntryPtx, MathMatchesTheBackend) {
  const Implementation& e = *GetParam();
  for (const Kernel& k : kernels_of(e)) {
    const std::vector<std::string> found = built_ptx().kernels_matching(k.needle);
    ASSERT_EQ(found.size(), 1u) << "kernel " << k.needle << " of " << e.name;
    const std::string code = built_ptx().code(found[0]);
    if (e.strategy == Strategy::kPrecise) {
      // Double-double arithmetic only: no approximation, no flush to zero, no math library.
      EXPECT_FALSE(has(code, ".approx")) << e.name;
      EXPECT_FALSE(has(code, ".ftz")) << e.name;
      EXPECT_FALSE(has(code, "__cudart_i2opi")) << e.name;
      EXPECT_TRUE(has(code, "fma.rn.f64")) << e.name;
    } else if (e.backend == Backend::kCudaFast) {
      for (const std::string& need : k.fast_needs)
        EXPECT_TRUE(has(code, need)) << e.name << ": " << k.needle << " lacks " << need;
      // No accurate sincosf (its Payne-Hanek table) nor correctly rounded division either.
      EXPECT_FALSE(has(code, "__cudart_i2opi_f")) << e.name << ": " << k.needle;
      EXPECT_FALSE(has(code, "div.rn.f32")) << e.name << ": " << k.needle;
    } else {
      for (const std::string& v : accurate_violations(code, k.frequency))
        ADD_FAILURE() << e.name << ": " << k.needle << " contains " << v;
      if (!k.frequency) {  // sincosf's reduction of large arguments: the accurate path
        EXPECT_TRUE(has(code, "__cudart_i2opi_f")) << e.name << ": " << k.needle;
      }
    }
  }
}

TEST_P(EntryPtx, StoresRoundToNearestEven) {
  const Implementation& e = *GetParam();
  const Kernel rows = kernels_of(e).back();
  const std::vector<std::string> found = built_ptx().kernels_matching(rows.needle);
  ASSERT_EQ(found.size(), 1u) << rows.needle;
  const std::string code = built_ptx().code(found[0]);
  // cvt.rn is IEEE roundToNearestTiesToEven (PTX ISA); the host versions of these conversions
  // are held against core's and the oracle in conversions_test.cc.
  if (e.strategy == Strategy::kPrecise) {
    EXPECT_TRUE(has(code, "cvt.rn.f32.f64")) << e.name;
    EXPECT_TRUE(has(code, "cvt.rn.f16.f64")) << e.name;
  } else {
    EXPECT_TRUE(has(code, "cvt.rn.f16.f32")) << e.name;
    EXPECT_TRUE(has(code, "cvt.rn.bf16.f32")) << e.name;
  }
  for (const char* other : {"cvt.rz.f16", "cvt.rm.f16", "cvt.rp.f16", "cvt.rz.bf16"})
    EXPECT_FALSE(has(code, other)) << e.name << ": " << other;
}

INSTANTIATE_TEST_SUITE_P(Cuda, EntryPtx, testing::ValuesIn(cuda_entries()),
                         [](const testing::TestParamInfo<const Implementation*>& info) {
                           std::string n = info.param->name;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(Ptx, EveryKernelBelongsToAnEntry) {
  std::set<std::string> used;
  for (const Implementation* e : cuda_entries())
    for (const Kernel& k : kernels_of(*e))
      for (const std::string& m : built_ptx().kernels_matching(k.needle)) used.insert(m);
  for (const std::string& k : built_ptx().kernels())
    EXPECT_TRUE(used.count(k)) << "no entry runs " << demangle(k);
  EXPECT_FALSE(cuda_entries().empty());
}

TEST(Ptx, CatchesFastMathLeakingIntoTheAccurateKernels) {
  const Ptx leak(PEV_PTX_LEAK_FILES);
  ASSERT_FALSE(leak.kernels().empty());
  for (const std::string& k : leak.kernels()) {
    const bool frequency = demangle(k).find("_frequencies<") != std::string::npos;
    EXPECT_FALSE(accurate_violations(leak.code(k), frequency).empty())
        << demangle(k) << " built with -use_fast_math passes the accuracy check";
  }
}

}  // namespace
}  // namespace pev::core::cuda
