// Which Highway target the Highway entries run. Highway compiles their kernels once per target
// (foreach_target.h) and HWY_DYNAMIC_DISPATCH picks the best one this CPU runs.
#pragma once

#include <cstddef>
#include <string_view>

namespace pev::core {

// hwy::TargetName of the target the Highway entries use here, e.g. "AVX3", "AVX2", "SSE4".
// Follows hwy::SetSupportedTargetsForTest, so tests can pin a target.
std::string_view highway_target();

// Buffers the Highway row kernels take hold a multiple of this many floats (256 bytes, the widest
// Highway vector), so the kernels never handle tails.
inline constexpr size_t kHighwayPad = 64;
// sin[i], cos[i] of a = pos * w[i] rounded to float, Highway contrib/math Sin and Cos (3 ulp for
// |a| <= 39000) on the best target: n a multiple of kHighwayPad.
void highway_sincos_row(float pos, const float* w, float* sin, float* cos, size_t n);

}  // namespace pev::core
