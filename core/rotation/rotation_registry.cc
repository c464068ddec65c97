#include "peverify/core/rotation/rotation_registry.h"

#include <string>

#include "peverify/core/highway/highway_dispatch.h"
#include "peverify/core/recipe.h"
#include "peverify/core/rotation/rotation_entries.h"
#include "peverify/core/sleef/sleef_dispatch.h"

namespace pev::core {
namespace rotation_internal {

RowPositions token_ids(const RowPositions& positions, const uint64_t* tokens, uint64_t n) {
  RowPositions ids;
  ids.streams.assign(positions.streams.size(), std::vector<uint64_t>(n));
  for (size_t s = 0; s < ids.streams.size(); ++s)
    for (uint64_t i = 0; i < n; ++i) ids.streams[s][i] = positions.streams[s][tokens[i]];
  return ids;
}

}  // namespace rotation_internal

namespace {

std::vector<RotationImplementation> make_rotations() {
  using namespace rotation_internal;
  const std::string no_fma = "-ffp-contract=off";
  const std::string sleef = "sleef isa=" + std::string(sleef_isa()) + "; " + no_fma;
  std::vector<RotationImplementation> r = {
      {"cpu/rotate/cache-f32/f32", Dtype::kFloat32, Dtype::kFloat32, "float32", every_recipe(),
       sleef,
       "Hugging Face's apply_rotary_pos_emb with a float32 model: q * cos + rotate_half(q) * sin "
       "from the float32 cache of cpu/pow/f32>f32/sleef-u10",
       &apply_cache_f32},
      {"cpu/rotate/cache-f32-fma/f32", Dtype::kFloat32, Dtype::kFloat32, "float32-fma",
       every_recipe(), sleef + "; std::fma for one product and the sum",
       "the float32 cache rotation as compiled with contraction (nvcc's default, vLLM's CUDA "
       "kernel): fma(x_a, c, -(x_b s)); the host twin of cuda/rotate/cache-f32/f32",
       &apply_cache_f32_fma},
      {"cpu/rotate/hf-bf16/bf16", Dtype::kBFloat16, Dtype::kBFloat16, "bfloat16", every_recipe(),
       sleef,
       "Hugging Face's apply_rotary_pos_emb with a bfloat16 model: the float32 cache cast to "
       "bfloat16, every product and the sum rounded to bfloat16",
       &apply_hf_bf16},
      {"cpu/rotate/fused-f32/f32/glibc", Dtype::kFloat32, Dtype::kFloat32, "float32",
       every_recipe(), no_fma,
       "a fused kernel (Transformer Engine): float32 angle p * inv_freq, glibc sincosf, float32 "
       "products",
       &apply_fused_glibc_f32},
      {"cpu/rotate/fused-f32/f32/sleef-u10", Dtype::kFloat32, Dtype::kFloat32, "float32",
       every_recipe(), sleef,
       "a fused kernel: float32 angle p * inv_freq, SLEEF's vector sincosf u10, float32 products",
       &apply_fused_sleef_f32},
      {"cpu/rotate/fused-f32/f32/hwy", Dtype::kFloat32, Dtype::kFloat32, "float32", every_recipe(),
       "hwy target=" + std::string(highway_target()) +
           " (HWY_DYNAMIC_DISPATCH); Sin and Cos use explicit FMA on AVX2/AVX3 targets; products "
           "with " +
           no_fma,
       "a fused kernel: float32 angle p * inv_freq, Highway contrib/math Sin and Cos on the "
       "best target, float32 products",
       &apply_fused_highway_f32},
      {"cpu/rotate/fused-f64/f32/glibc", Dtype::kFloat32, Dtype::kFloat32, "float64",
       every_recipe(), no_fma,
       "a float64 reference: float64 inv_freq and angle, glibc sincos, float64 products, one "
       "rounding to float32",
       &apply_fused_glibc_f64},
      {"cpu/rotate/precise/f32",
       Dtype::kFloat32,
       Dtype::kFloat32,
       "float64",
       every_recipe(),
       no_fma + "; std::fma, __float128 (libquadmath) where double cannot certify",
       "ours: the precise strategy's double-double frequencies and direct sin and cos in double, "
       "one product and one FMA in double, every output certified faithful (recomputed in "
       "__float128 where the products cancel)",
       &apply_precise_f32,
       nullptr,
       {},
       {},
       Claim::Kind::kFaithful},
  };
  add_cuda_rotations(r);
  return r;
}

}  // namespace

const std::vector<RotationImplementation>& rotation_registry() {
  static const std::vector<RotationImplementation> r = make_rotations();
  return r;
}

const RotationImplementation* find_rotation(std::string_view name) {
  for (const RotationImplementation& r : rotation_registry())
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace pev::core
