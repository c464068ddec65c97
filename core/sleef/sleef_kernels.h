// Internal to core/sleef: the per-ISA kernels behind the SLEEF entries. Each ISA's kernels live in
// their own file, compiled with that ISA's flags only, and hold nothing but intrinsics and SLEEF
// calls: an inline function shared with baseline code could otherwise be merged by the linker
// into its AVX-512 copy and fault on an older CPU.
#pragma once

#include <cstddef>
#include <string_view>

namespace pev::core::sleef_internal {

// Every buffer a kernel reads or writes holds a multiple of this many floats (the widest vector),
// so kernels never handle tails. Padding lanes compute values that nobody reads.
inline constexpr size_t kPad = 16;

// out[i] = f(in[i]) for i in [0, n), n a multiple of kPad.
using RowFunction = void (*)(const float* in, float* out, size_t n);
// out[i] = base^e[i] (Sleef powf u10).
using PowFunction = void (*)(float base, const float* e, float* out, size_t n);
// a[i] = pos * w[i] (or pos / w[i]), rounded to float; sin[i], cos[i] = sincos(a[i]).
using SinCosFunction = void (*)(float pos, const float* w, float* sin, float* cos, size_t n);

struct Kernels {
  std::string_view isa;  // "avx512f", "avx2", "sse4", "sse2"
  PowFunction pow_u10;
  RowFunction exp_u10;
  // [0]: Sleef sincosf u10, [1]: u35.
  SinCosFunction times[2];   // a = pos * w (logspace)
  SinCosFunction divide[2];  // a = pos / w (pow)
};

// Defined in sleef_kernels_<isa>.cc. Call only when the CPU has the ISA (see sleef_dispatch.cc).
const Kernels& avx512f_kernels();
const Kernels& avx2_kernels();
const Kernels& sse4_kernels();
const Kernels& sse2_kernels();

// The kernels of `isa` if this CPU runs them, else nullptr.
const Kernels* kernels_for(std::string_view isa);
// The best kernels this CPU runs (chosen once).
const Kernels& best_kernels();

}  // namespace pev::core::sleef_internal
