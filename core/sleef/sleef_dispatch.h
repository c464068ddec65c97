// Which SIMD instruction set the SLEEF entries run. SLEEF's vector functions are compiled once per
// ISA, each in its own file with that ISA's flags, and the best one this CPU runs is chosen at run
// time, so one binary serves every x86-64 machine.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "peverify/core/implementation.h"

namespace pev::core {

// The ISA the SLEEF entries use here: "avx512f", "avx2" (AVX2 with FMA), "sse4" or "sse2".
std::string_view sleef_isa();

// Every ISA compiled in, best first.
std::span<const std::string_view> sleef_isas();
// Whether this CPU runs `isa` (false for a name not in sleef_isas()).
bool sleef_isa_supported(std::string_view isa);

// A fill function that computes what the SLEEF entries' own fill does, but with the kernels of
// `isa`; nullptr when this CPU does not run it. For tests and benchmarks that compare ISAs: put
// it in a copy of an entry.
using FillFunction = void (*)(const Implementation& self, const TableSpec& spec, uint64_t count,
                              void* out);
FillFunction sleef_fill_for_isa(std::string_view isa);

}  // namespace pev::core
