#include "peverify/core/sleef/sleef_dispatch.h"

#include <array>

#include "peverify/core/sleef/sleef_kernels.h"

namespace pev::core {
namespace {

constexpr std::array<std::string_view, 4> kIsas = {"avx512f", "avx2", "sse4", "sse2"};

}  // namespace

std::span<const std::string_view> sleef_isas() { return kIsas; }

bool sleef_isa_supported(std::string_view isa) {
  __builtin_cpu_init();  // may run before the constructors that would otherwise call it
  // libgcc also checks that the OS saves the AVX and AVX-512 registers (XGETBV).
  if (isa == "avx512f") return __builtin_cpu_supports("avx512f");
  if (isa == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == "sse4") return __builtin_cpu_supports("sse4.1");
  return isa == "sse2";  // the x86-64 baseline
}

std::string_view sleef_isa() { return sleef_internal::best_kernels().isa; }

namespace sleef_internal {

const Kernels* kernels_for(std::string_view isa) {
  if (!sleef_isa_supported(isa)) return nullptr;
  if (isa == "avx512f") return &avx512f_kernels();
  if (isa == "avx2") return &avx2_kernels();
  if (isa == "sse4") return &sse4_kernels();
  return &sse2_kernels();
}

const Kernels& best_kernels() {
  static const Kernels& best = []() -> const Kernels& {
    for (std::string_view isa : kIsas)
      if (const Kernels* k = kernels_for(isa)) return *k;
    return sse2_kernels();
  }();
  return best;
}

}  // namespace sleef_internal
}  // namespace pev::core
