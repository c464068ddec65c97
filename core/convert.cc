#include "peverify/core/convert.h"

#include <immintrin.h>

#include <bit>
#include <cstring>

// Compiles the kernels below once per SIMD target (Highway re-includes this file).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peverify/core/convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"
#include "peverify/core/convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whole vectors of in converted by to_bits, then the tail, each element broadcast to a whole
// vector: the scalar functions (rows of one element) run the very instantiation a long row does.
// (Not one-lane vectors: in Highway 1.0.3 their variable shifts read a 64-bit count and give 0;
// fixed upstream by google/highway#1428.)
template <class D, class ToBits>
HWY_INLINE void ConvertVectors(D d, const hn::TFromD<D>* HWY_RESTRICT in, size_t n,
                               uint16_t* HWY_RESTRICT out, const ToBits& to_bits) {
  const hn::Rebind<uint16_t, D> du16;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(to_bits(hn::LoadU(d, in + i)), du16, out + i);
  for (; i < n; ++i) out[i] = hn::GetLane(to_bits(hn::Set(d, in[i])));
}

// float -> float16 or bfloat16 bit patterns.
void ConvertRow(const float* HWY_RESTRICT in, size_t n, Dtype output, Conversion conversion,
                uint16_t* HWY_RESTRICT out) {
  const hn::ScalableTag<float> df;
  ConvertVectors(df, in, n, out,
                 [&](auto v) HWY_ATTR { return ToHalfBits(df, v, output, conversion); });
}

// double -> float16 or bfloat16 bit patterns, each rounded once (convert-inl.h).
void ConvertRowF64(const double* HWY_RESTRICT in, size_t n, Dtype output, Conversion conversion,
                   uint16_t* HWY_RESTRICT out) {
  const hn::ScalableTag<double> dd;
  ConvertVectors(dd, in, n, out,
                 [&](auto v) HWY_ATTR { return HalfBitsFromF64(dd, v, output, conversion); });
}

const char* DispatchedTargetName() { return hwy::TargetName(HWY_TARGET); }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace pev::core
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pev::core {

HWY_EXPORT(ConvertRow);
HWY_EXPORT(ConvertRowF64);
HWY_EXPORT(DispatchedTargetName);

std::string_view convert_target() { return HWY_DYNAMIC_DISPATCH(DispatchedTargetName)(); }

// One float16 <-> float conversion is one F16C instruction where the CPU has it: the native
// float16 entries round after every operation, and the dispatched row (or the compiler's
// software __extendhfsf2) took a tenth of the report's time. F16C rounds to nearest even, as the
// row kernels do (Highway's targets with float16 vectors use the same instructions).
namespace {

__attribute__((target("f16c"))) uint16_t f16_from_f32_f16c(float x) {
  return static_cast<uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
__attribute__((target("f16c"))) float f32_from_f16_f16c(uint16_t bits) { return _cvtsh_ss(bits); }

const bool kHasF16c = __builtin_cpu_supports("f16c");

}  // namespace

uint16_t f16_from_f32(float x) {
  if (kHasF16c) return f16_from_f32_f16c(x);
  uint16_t h;
  convert_row(&x, 1, Dtype::kFloat16, Conversion::kNearestEven, &h);
  return h;
}

uint16_t bf16_from_f32(float x) {
  uint16_t h;
  convert_row(&x, 1, Dtype::kBFloat16, Conversion::kNearestEven, &h);
  return h;
}

uint16_t bf16_from_f32_truncate(float x) {
  uint16_t h;
  convert_row(&x, 1, Dtype::kBFloat16, Conversion::kTruncate, &h);
  return h;
}

uint16_t f16_from_f64(double x) {
  uint16_t h;
  convert_row(&x, 1, Dtype::kFloat16, Conversion::kNearestEven, &h);
  return h;
}

uint16_t bf16_from_f64(double x) {
  uint16_t h;
  convert_row(&x, 1, Dtype::kBFloat16, Conversion::kNearestEven, &h);
  return h;
}

float f32_from_f16(uint16_t bits) {
  return kHasF16c ? f32_from_f16_f16c(bits) : static_cast<float>(std::bit_cast<_Float16>(bits));
}
float f32_from_bf16(uint16_t bits) { return std::bit_cast<float>(uint32_t{bits} << 16); }

void convert_row(const float* in, size_t n, Dtype output, Conversion conversion, void* dst) {
  if (n == 0) return;
  switch (output) {
    case Dtype::kFloat64:
      for (size_t i = 0; i < n; ++i) static_cast<double*>(dst)[i] = in[i];
      return;
    case Dtype::kFloat32:
      std::memcpy(dst, in, n * sizeof(float));
      return;
    case Dtype::kFloat16:
    case Dtype::kBFloat16:
      HWY_DYNAMIC_DISPATCH(ConvertRow)(in, n, output, conversion, static_cast<uint16_t*>(dst));
      return;
  }
}

void convert_row(const double* in, size_t n, Dtype output, Conversion conversion, void* dst) {
  if (n == 0) return;
  switch (output) {
    case Dtype::kFloat64:
      std::memcpy(dst, in, n * sizeof(double));
      return;
    case Dtype::kFloat32:
      for (size_t i = 0; i < n; ++i) static_cast<float*>(dst)[i] = static_cast<float>(in[i]);
      return;
    case Dtype::kFloat16:
    case Dtype::kBFloat16:
      HWY_DYNAMIC_DISPATCH(ConvertRowF64)(in, n, output, conversion, static_cast<uint16_t*>(dst));
      return;
  }
}

}  // namespace pev::core
#endif  // HWY_ONCE
