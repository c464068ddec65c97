// Internal to core/frameworks: the loops of torch_kernels.h over one ISA's vector type V
// (V::kLanes lanes of V::T), written once for every ISA and type.
#pragma once

#include <cstddef>

namespace pev::core::torch_internal {

// vec::map: whole vectors, then one partial vector whose missing lanes are zero.
template <class V, typename V::Vec (*F)(typename V::Vec)>
void map_lanes(const typename V::T* in, typename V::T* out, size_t n) {
  using T = typename V::T;
  size_t i = 0;
  for (; i + V::kLanes <= n; i += V::kLanes) V::store(out + i, F(V::load(in + i)));
  if (i == n) return;
  T lanes[V::kLanes] = {};
  for (size_t j = i; j < n; ++j) lanes[j - i] = in[j];
  T result[V::kLanes];
  V::store(result, F(V::load(lanes)));
  for (size_t j = i; j < n; ++j) out[j] = result[j - i];
}

// cpu_kernel_vec's vectorized_loop with a scalar base: two vectors at a time, the rest by the
// scalar lambda (std::pow, which is libm's powf or pow: V::scalar_pow calls it, not an inline
// function a baseline caller could share).
template <class V, typename V::Vec (*Pow)(typename V::Vec, typename V::Vec)>
void pow_lanes(typename V::T base, const typename V::T* e, typename V::T* out, size_t n) {
  size_t i = 0;
  const typename V::Vec b = V::set(base);
  for (; i + 2 * V::kLanes <= n; i += 2 * V::kLanes) {
    V::store(out + i, Pow(b, V::load(e + i)));
    V::store(out + i + V::kLanes, Pow(b, V::load(e + i + V::kLanes)));
  }
  for (; i < n; ++i) out[i] = V::scalar_pow(base, e[i]);
}

}  // namespace pev::core::torch_internal
