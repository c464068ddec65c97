// The fused rotations: no cache, the angle p * w_j computed per token in the compute type and its
// sine and cosine taken on the fly, as Transformer Engine's fused RoPE (a float32 angle,
// sincosf) and FlashInfer's accurate path do. w_j is Hugging Face's inv_freq, in the compute type
// (core/recipe_arith.h), computed once per call as frameworks keep it in a buffer.
#include <math.h>  // sincosf, sincos (GNU)

#include <vector>

#include "peverify/core/glibc/compute_type.h"
#include "peverify/core/highway/highway_dispatch.h"
#include "peverify/core/recipe.h"
#include "peverify/core/rotation/rotate_heads.h"
#include "peverify/core/rotation/rotation_entries.h"
#include "peverify/core/sleef/sleef_kernels.h"

namespace pev::core::rotation_internal {
namespace {

// inv_freq = 1.0 / (base ** (arange(0, d, 2).float() / d)), then the recipe, in A's type
// (_compute_*_parameters in transformers' modeling_rope_utils.py).
template <class A>
std::vector<typename A::T> inv_freq(const TableSpec& spec) {
  using T = typename A::T;
  const RecipeScalars r = recipe_scalars(spec);
  std::vector<T> w(spec.d_model / 2);
  for (int j = 0; j < spec.d_model / 2; ++j) {
    const FrequencyExponent e = frequency_exponent(spec, j);
    const T exponent = A::div(A::from_double(static_cast<double>(-e.numerator)),
                              A::from_double(static_cast<double>(e.denominator)));
    const T den = A::pow(A::from_double(strategy_base(spec)), exponent);
    // The default recipe's frequency is the reciprocal; the others' recipe_frequency returns it.
    w[j] = r.type == RopeType::kDefault ? A::div(A::from_double(1.0), den)
                                        : recipe_frequency(A(), r, j, den, true);
  }
  return w;
}

struct Glibc32 {
  static void sincos(float a, float* s, float* c) { ::sincosf(a, s, c); }
};
struct Glibc64 {
  static void sincos(double a, double* s, double* c) { ::sincos(a, s, c); }
};

// A cos, A sin of every pair at token i: the angle fl(p * w_j) at the position of the pair's
// stream, then SinCos, then the attention factor in the compute type.
template <class A, class SinCos, class Io>
void rotate_fused(const RotationSpec& spec, const RowPositions& positions, const uint64_t* tokens,
                  uint64_t n, int heads, const void* x, void* out) {
  using T = typename A::T;
  const int pairs = spec.table.d_model / 2;
  const RecipeScalars r = recipe_scalars(spec.table);
  const std::vector<T> w = inv_freq<A>(spec.table);
  std::vector<T> c(pairs), s(pairs);
  const uint64_t stride = static_cast<uint64_t>(heads) * static_cast<uint64_t>(spec.head_dim);
  for (uint64_t i = 0; i < n; ++i) {
    for (int j = 0; j < pairs; ++j) {
      const T p = A::from_position(positions.of_pair(spec.table, tokens[i], j));
      SinCos::sincos(A::mul(p, w[j]), &s[j], &c[j]);
      c[j] = attention_scaled(A(), r, c[j]);
      s[j] = attention_scaled(A(), r, s[j]);
    }
    rotate_heads<T, Io, Io, Native<T>>(spec, c.data(), s.data(), x, out, i * stride, heads);
  }
}

}  // namespace

std::vector<float> float32_inv_freq(const TableSpec& spec) {
  return inv_freq<glibc::Float32>(spec);
}

void apply_fused_glibc_f32(const RotationImplementation&, const RotationSpec& spec,
                           const RowPositions& positions, const uint64_t* tokens, uint64_t n,
                           int heads, const void* x, void* out) {
  rotate_fused<glibc::Float32, Glibc32, FloatIo>(spec, positions, tokens, n, heads, x, out);
}

void apply_fused_glibc_f64(const RotationImplementation&, const RotationSpec& spec,
                           const RowPositions& positions, const uint64_t* tokens, uint64_t n,
                           int heads, const void* x, void* out) {
  rotate_fused<glibc::Float64, Glibc64, FloatIo>(spec, positions, tokens, n, heads, x, out);
}

namespace {

// A fused rotation whose sin and cos come a whole row of pairs at a time from a vector kernel
// `row(pos, w, sin, cos, padded)` (SLEEF, Highway): one call per stream (M-RoPE: three), each pair
// then takes its own stream's values, times A in float32.
template <class Row>
void rotate_fused_rows(const RotationSpec& spec, const RowPositions& positions,
                       const uint64_t* tokens, uint64_t n, int heads, const void* x, void* out,
                       size_t pad, Row row) {
  using A = glibc::Float32;
  const int pairs = spec.table.d_model / 2;
  const size_t padded = (pairs + pad - 1) / pad * pad;
  const RecipeScalars r = recipe_scalars(spec.table);
  std::vector<float> w = float32_inv_freq(spec.table);
  w.resize(padded, 0.0f);
  const int streams = positions.stream_count();
  std::vector<float> sv(padded * streams), cv(padded * streams), c(pairs), s(pairs);
  const uint64_t stride = static_cast<uint64_t>(heads) * static_cast<uint64_t>(spec.head_dim);
  for (uint64_t i = 0; i < n; ++i) {
    for (int st = 0; st < streams; ++st)
      row(A::from_position(positions.streams[st][tokens[i]]), w.data(), &sv[st * padded],
          &cv[st * padded], padded);
    for (int j = 0; j < pairs; ++j) {
      const size_t st = streams == 1 ? 0 : static_cast<size_t>(mrope_stream(spec.table.rope, j));
      c[j] = attention_scaled(A(), r, cv[st * padded + j]);
      s[j] = attention_scaled(A(), r, sv[st * padded + j]);
    }
    rotate_heads<float, FloatIo, FloatIo, Native<float>>(spec, c.data(), s.data(), x, out,
                                                         i * stride, heads);
  }
}

}  // namespace

// SLEEF's vector sincosf u10 on the ISA the SLEEF entries chose.
void apply_fused_sleef_f32(const RotationImplementation&, const RotationSpec& spec,
                           const RowPositions& positions, const uint64_t* tokens, uint64_t n,
                           int heads, const void* x, void* out) {
  const sleef_internal::Kernels& k = sleef_internal::best_kernels();
  rotate_fused_rows(
      spec, positions, tokens, n, heads, x, out, sleef_internal::kPad,
      [&k](float p, const float* w, float* s, float* c, size_t m) { k.times[0](p, w, s, c, m); });
}

// Highway contrib/math Sin and Cos on the best target this CPU runs.
void apply_fused_highway_f32(const RotationImplementation&, const RotationSpec& spec,
                             const RowPositions& positions, const uint64_t* tokens, uint64_t n,
                             int heads, const void* x, void* out) {
  rotate_fused_rows(spec, positions, tokens, n, heads, x, out, kHighwayPad, &highway_sincos_row);
}

}  // namespace pev::core::rotation_internal
