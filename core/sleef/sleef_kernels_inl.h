// The SLEEF kernels' loops, written once over an ISA traits class. Included only by the
// sleef_kernels_<isa>.cc files, each with its own traits class in an unnamed namespace, so every
// instantiation has internal linkage and keeps the flags of the file that made it.
#pragma once

#include <cstddef>

#include "peverify/core/sleef/sleef_kernels.h"

namespace pev::core::sleef_internal {

template <class Isa>
void pow_u10_row(float base, const float* e, float* out, size_t n) {
  const typename Isa::V b = Isa::set(base);
  for (size_t i = 0; i < n; i += Isa::kLanes)
    Isa::store(out + i, Isa::pow_u10(b, Isa::load(e + i)));
}

template <class Isa>
void exp_u10_row(const float* in, float* out, size_t n) {
  for (size_t i = 0; i < n; i += Isa::kLanes) Isa::store(out + i, Isa::exp_u10(Isa::load(in + i)));
}

template <class Isa, bool kDivide, bool kU35>
void sincos_row(float pos, const float* w, float* sin, float* cos, size_t n) {
  const typename Isa::V p = Isa::set(pos);
  for (size_t i = 0; i < n; i += Isa::kLanes) {
    const typename Isa::V wi = Isa::load(w + i);
    const typename Isa::V a = kDivide ? Isa::div(p, wi) : Isa::mul(p, wi);
    const auto sc = kU35 ? Isa::sincos_u35(a) : Isa::sincos_u10(a);
    Isa::store(sin + i, sc.x);
    Isa::store(cos + i, sc.y);
  }
}

template <class Isa>
constexpr Kernels make_kernels(std::string_view isa) {
  static_assert(kPad % Isa::kLanes == 0);
  return Kernels{isa,
                 &pow_u10_row<Isa>,
                 &exp_u10_row<Isa>,
                 {&sincos_row<Isa, false, false>, &sincos_row<Isa, false, true>},
                 {&sincos_row<Isa, true, false>, &sincos_row<Isa, true, true>}};
}

}  // namespace pev::core::sleef_internal
