// Which Highway target the Highway entries run. Highway compiles their kernels once per target
// (foreach_target.h) and HWY_DYNAMIC_DISPATCH picks the best one this CPU runs.
#pragma once

#include <string_view>

namespace pev::core {

// hwy::TargetName of the target the Highway entries use here, e.g. "AVX3", "AVX2", "SSE4".
// Follows hwy::SetSupportedTargetsForTest, so tests can pin a target.
std::string_view highway_target();

}  // namespace pev::core
