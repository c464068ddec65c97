// Internal to core/rotation: the apply functions the registry's entries point at.
#pragma once

#include <cstdint>

#include "core/rotation/rotation_registry.h"

namespace pev::core::rotation_internal {

// The tokens' own positions: row i of the result is row tokens[i] of `positions`, every stream.
RowPositions token_ids(const RowPositions& positions, const uint64_t* tokens, uint64_t n);

// Each entry's `apply` (declared through the function type, so every signature is the same).
using ApplyFunction = void(const RotationImplementation& self, const RotationSpec& spec,
                           const RowPositions& positions, const uint64_t* tokens, uint64_t n,
                           int heads, const void* x, void* out);
ApplyFunction apply_cache_f32;        // rotation_cache.cc
ApplyFunction apply_hf_bf16;          // rotation_cache.cc
ApplyFunction apply_fused_glibc_f32;  // rotation_fused.cc
ApplyFunction apply_fused_sleef_f32;  // rotation_fused.cc
ApplyFunction apply_fused_glibc_f64;  // rotation_fused.cc

}  // namespace pev::core::rotation_internal
