// Internal to core/rotation: the apply functions the registry's entries point at.
#pragma once

#include <cstdint>
#include <vector>

#include "peverify/core/rotation/rotation_registry.h"

namespace pev::core::rotation_internal {

// The tokens' own positions: row i of the result is row tokens[i] of `positions`, every stream.
RowPositions token_ids(const RowPositions& positions, const uint64_t* tokens, uint64_t n);

// A cos of every pair at token i's position in row i's first d/2 floats, A sin in the next d/2:
// the registry's Hugging Face style float32 cache (rotation_cache.cc), which the cache entries
// and the CUDA cache kernels multiply by.
std::vector<float> float32_cache(const RotationSpec& spec, const RowPositions& positions,
                                 const uint64_t* tokens, uint64_t n);
// Hugging Face's float32 inv_freq with the recipe applied (rotation_fused.cc): what the fused
// entries, CPU and CUDA, multiply positions by.
std::vector<float> float32_inv_freq(const TableSpec& spec);

// Each entry's `apply` (declared through the function type, so every signature is the same).
using ApplyFunction = void(const RotationImplementation& self, const RotationSpec& spec,
                           const RowPositions& positions, const uint64_t* tokens, uint64_t n,
                           int heads, const void* x, void* out);
ApplyFunction apply_cache_f32;          // rotation_cache.cc
ApplyFunction apply_cache_f32_fma;      // rotation_cache.cc
ApplyFunction apply_hf_bf16;            // rotation_cache.cc
ApplyFunction apply_fused_glibc_f32;    // rotation_fused.cc
ApplyFunction apply_fused_sleef_f32;    // rotation_fused.cc
ApplyFunction apply_fused_glibc_f64;    // rotation_fused.cc
ApplyFunction apply_fused_highway_f32;  // rotation_fused.cc
ApplyFunction apply_precise_f32;        // rotation_precise.cc

// Elements of apply_precise_f32 that neither its double nor its __float128 path certified as
// faithful since the process started (0 in every test: docs/features.md §15.4).
uint64_t precise_rotation_uncertified();
// The __float128 path for one output r = x c - y s at pos (out_a: x = x_a, y = x_b; out_b:
// x = x_b, y = -x_a), for elements the double path (precise_rotation.h) did not certify.
float precise_rotation_fallback(double pos, double w_hi, double w_lo, double e_w, double attention,
                                double x, double y);
// Elements it recomputed in __float128 because double could not certify them.
uint64_t precise_rotation_recomputed();

// The CUDA entries (core/cuda/cuda_rotations.cc; none when CUDA is off).
void add_cuda_rotations(std::vector<RotationImplementation>& out);

}  // namespace pev::core::rotation_internal
