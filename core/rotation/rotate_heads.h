// Internal to core/rotation: the loop every rotation entry shares once it has each pair's cos and
// sin in its compute type. What differs between entries is where c and s come from and how each
// product and the sum are rounded (`Arith`), as in the frameworks they mirror.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "peverify/core/convert.h"
#include "peverify/encoding/rotation.h"

namespace pev::core::rotation_internal {

// Storage types: the value of element i widened to the compute type, and stored back.
struct FloatIo {
  static constexpr size_t kSize = 4;
  static float load(const void* p, uint64_t i) { return static_cast<const float*>(p)[i]; }
  static void store(void* p, uint64_t i, float v) { static_cast<float*>(p)[i] = v; }
};
struct DoubleIo {
  static constexpr size_t kSize = 8;
  static double load(const void* p, uint64_t i) { return static_cast<const double*>(p)[i]; }
  static void store(void* p, uint64_t i, double v) { static_cast<double*>(p)[i] = v; }
};
struct BFloat16Io {
  static constexpr size_t kSize = 2;
  static float load(const void* p, uint64_t i) {
    return f32_from_bf16(static_cast<const uint16_t*>(p)[i]);
  }
  static void store(void* p, uint64_t i, float v) {
    static_cast<uint16_t*>(p)[i] = bf16_from_f32(v);
  }
};

// How a pair's two outputs are rounded: out_a = x_a c - x_b s, out_b = x_b c + x_a s.
// Products and sum in T, each rounded by T's own arithmetic (never fused: the module is built
// with -ffp-contract=off).
template <class T>
struct Native {
  static T out_a(T xa, T xb, T c, T s) { return xa * c - xb * s; }
  static T out_b(T xa, T xb, T c, T s) { return xb * c + xa * s; }
};
// One product fused with the sum, as nvcc and compilers that contract write x_a c - x_b s:
// fma(x_a, c, -(x_b s)). The CUDA cache and fused kernels (core/cuda/rotation_kernels.cu) round
// exactly so.
struct FusedFloat32 {
  static float out_a(float xa, float xb, float c, float s) { return std::fma(xa, c, -(xb * s)); }
  static float out_b(float xa, float xb, float c, float s) { return std::fma(xb, c, xa * s); }
};
// Hugging Face with a bfloat16 model: every product and the sum rounded to bfloat16.
struct BFloat16Math {
  static float round(float v) { return f32_from_bf16(bf16_from_f32(v)); }
  static float out_a(float xa, float xb, float c, float s) {
    return round(round(xa * c) - round(xb * s));
  }
  static float out_b(float xa, float xb, float c, float s) {
    return round(round(xb * c) + round(xa * s));
  }
};

// Token `t` (heads x head_dim values from element `first` of x) rotated by c[j], s[j] (A cos,
// A sin of each pair in the compute type): out_a = x_a c - x_b s, out_b = x_b c + x_a s; the
// dims past the rotary dimension copied.
template <class T, class In, class Out, class Arith>
void rotate_heads(const RotationSpec& spec, const T* c, const T* s, const void* x, void* out,
                  uint64_t first, int heads) {
  const int d = spec.table.d_model, hd = spec.head_dim;
  for (int h = 0; h < heads; ++h) {
    const uint64_t base = first + static_cast<uint64_t>(h) * static_cast<uint64_t>(hd);
    for (int j = 0; j < d / 2; ++j) {
      const auto [a, b] = rotated_dims(spec, j);
      const T xa = In::load(x, base + a), xb = In::load(x, base + b);
      Out::store(out, base + a, Arith::out_a(xa, xb, c[j], s[j]));
      Out::store(out, base + b, Arith::out_b(xa, xb, c[j], s[j]));
    }
    static_assert(In::kSize == Out::kSize);
    constexpr size_t esize = In::kSize;
    // Pass-through dims keep their bits (same storage type in and out for every entry).
    std::memcpy(static_cast<unsigned char*>(out) + (base + d) * esize,
                static_cast<const unsigned char*>(x) + (base + d) * esize,
                static_cast<size_t>(hd - d) * esize);
  }
}

}  // namespace pev::core::rotation_internal
