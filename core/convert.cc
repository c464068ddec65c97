#include "core/convert.h"

#include <bit>
#include <cmath>
#include <cstring>

// Compiles the kernels below once per SIMD target (Highway re-includes this file).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Highway 1.0.3's DemoteTo to float16 is VCVTPS2PH (round to nearest even, whatever MXCSR says)
// on AVX2 and above; its fallback for the other targets truncates and maps Inf and NaN to finite
// numbers, so those targets use F16FromF32Bits instead.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
constexpr bool kDemoteRoundsToF16 = true;
#else
constexpr bool kDemoteRoundsToF16 = false;
#endif

// float -> float16 bits, ties to even, with integer ops: bit-identical to VCVTPS2PH, NaN payloads
// included (sign kept, quiet bit set, the top 10 payload bits kept).
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> F16FromF32Bits(DF /* df */, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto one = hn::Set(du, 1u);
  const auto bits = hn::BitCast(du, v);
  const auto abs = hn::And(bits, hn::Set(du, 0x7fffffffu));
  const auto abs_i = hn::BitCast(di, abs);  // < 2^31: signed compares are exact
  // Normal results: rebias the exponent, then round the significand from 23 to 10 bits; a carry
  // ripples into the exponent, up to Inf's encoding at 65520.
  const auto rebiased = hn::Sub(abs, hn::Set(du, (127u - 15u) << 23));
  const auto normal_odd = hn::And(hn::ShiftRight<13>(rebiased), one);
  const auto normal =
      hn::ShiftRight<13>(hn::Add(rebiased, hn::Add(hn::Set(du, 0xfffu), normal_odd)));
  // Subnormal results (|x| < 2^-14): the significand with its hidden bit, shifted right by
  // 126 - exponent with ties to even. The shift is clamped to [14, 25]: 25 leaves 0 for every
  // 24-bit significand, which covers float subnormals and zero too.
  const auto exponent = hn::BitCast(di, hn::ShiftRight<23>(abs));
  const auto shift = hn::BitCast(
      du, hn::Min(hn::Max(hn::Sub(hn::Set(di, 126), exponent), hn::Set(di, 14)), hn::Set(di, 25)));
  const auto significand = hn::Or(hn::And(abs, hn::Set(du, 0x7fffffu)), hn::Set(du, 0x800000u));
  const auto half_minus_one = hn::Sub(one << hn::Sub(shift, one), one);
  const auto sub_odd = hn::And(significand >> shift, one);
  const auto subnormal = hn::Add(significand, hn::Add(half_minus_one, sub_odd)) >> shift;

  auto r =
      hn::IfThenElse(hn::RebindMask(du, hn::Lt(abs_i, hn::Set(di, 0x38800000))), subnormal, normal);
  r = hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x477fefff))),
                     hn::Set(du, 0x7c00u), r);  // |x| >= 65520: Inf (and Inf itself)
  const auto nan =
      hn::Or(hn::Set(du, 0x7e00u), hn::And(hn::ShiftRight<13>(abs), hn::Set(du, 0x3ffu)));
  r = hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x7f800000))), nan, r);
  return hn::Or(r, hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 0x8000u)));
}

// float -> bfloat16 bits, ties to even. Highway 1.0.3 has no such conversion (its DemoteTo
// truncates), so it is written here: add half an ulp minus one, plus the kept lsb, then truncate.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> BF16FromF32Bits(DF /* df */, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto bits = hn::BitCast(du, v);
  const auto odd = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
  const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7fffu), odd)));
  // A NaN would round into Inf (or wrap to zero): keep its top bits and make it quiet instead.
  const auto nan = hn::Or(hn::ShiftRight<16>(bits), hn::Set(du, 0x40u));
  const auto abs_i = hn::BitCast(di, hn::And(bits, hn::Set(du, 0x7fffffffu)));
  return hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x7f800000))), nan, rounded);
}

// One vector of floats -> their 16-bit patterns, in the lower half-width vector.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> ToHalfBits(DF df, hn::Vec<DF> v, Dtype output,
                                                        Conversion conversion) {
  const hn::Rebind<uint16_t, DF> du16;
  const hn::RebindToSigned<DF> di;
  if (output == Dtype::kFloat16) {
    if constexpr (kDemoteRoundsToF16) {
      return hn::BitCast(du16, hn::DemoteTo(hn::Rebind<hwy::float16_t, DF>(), v));
    } else {
      return hn::DemoteTo(du16, hn::BitCast(di, F16FromF32Bits(df, v)));  // values < 2^16
    }
  }
  if (conversion == Conversion::kTruncate) {
    return hn::BitCast(du16, hn::DemoteTo(hn::Rebind<hwy::bfloat16_t, DF>(), v));
  }
  return hn::DemoteTo(du16, hn::BitCast(di, BF16FromF32Bits(df, v)));
}

// float -> float16 or bfloat16 bit patterns, whole vectors, then the tail.
void ConvertRow(const float* HWY_RESTRICT in, size_t n, Dtype output, Conversion conversion,
                uint16_t* HWY_RESTRICT out) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const size_t lanes = hn::Lanes(df);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(ToHalfBits(df, hn::LoadU(df, in + i), output, conversion), du16, out + i);
  }
  // The tail, each element broadcast to a whole vector: the scalar functions (rows of one element)
  // run the very instantiation a long row does. (Not one-lane vectors: in Highway 1.0.3 their
  // variable shifts read a 64-bit count and give 0; fixed upstream by google/highway#1428.)
  for (; i < n; ++i) out[i] = hn::GetLane(ToHalfBits(df, hn::Set(df, in[i]), output, conversion));
}

const char* DispatchedTargetName() { return hwy::TargetName(HWY_TARGET); }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace pev::core
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pev::core {

HWY_EXPORT(ConvertRow);
HWY_EXPORT(DispatchedTargetName);

std::string_view convert_target() { return HWY_DYNAMIC_DISPATCH(DispatchedTargetName)(); }

uint16_t f16_from_f32(float x) {
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

// libgcc's __truncdfhf2 rounds a double to _Float16 once, correctly.
uint16_t f16_from_f64(double x) { return std::bit_cast<uint16_t>(static_cast<_Float16>(x)); }

uint16_t bf16_from_f64(double x) {
  if (std::isnan(x)) return 0x7fc0;
  const double a = std::fabs(x);
  if (a < 0x1p-126) {  // bfloat16 subnormals: a fixed quantum of 2^-133
    const double q = std::nearbyint(std::ldexp(a, 133));  // exact, and RNE in the default mode
    const float r = static_cast<float>(std::ldexp(q, -133));
    return static_cast<uint16_t>(std::bit_cast<uint32_t>(std::copysign(r, static_cast<float>(x))) >>
                                 16);
  }
  // Round the double's significand from 53 to 8 bits (drop 45) with the integer trick: add half
  // an ulp minus one, plus the kept lsb, then clear; a carry ripples into the exponent.
  constexpr uint64_t kDropped = (uint64_t{1} << 45) - 1;
  uint64_t bits = std::bit_cast<uint64_t>(x);
  bits = (bits + (kDropped >> 1) + ((bits >> 45) & 1u)) & ~kDropped;
  const double r = std::bit_cast<double>(bits);
  if (std::fabs(r) > 0x1.fep127) return std::signbit(x) ? 0xff80 : 0x7f80;  // overflow to Inf
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(r)) >> 16);
}

float f32_from_f16(uint16_t bits) { return static_cast<float>(std::bit_cast<_Float16>(bits)); }
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
      for (size_t i = 0; i < n; ++i) static_cast<uint16_t*>(dst)[i] = f16_from_f64(in[i]);
      return;
    case Dtype::kBFloat16:
      for (size_t i = 0; i < n; ++i) {
        static_cast<uint16_t*>(dst)[i] = conversion == Conversion::kTruncate
                                             ? bf16_from_f32_truncate(static_cast<float>(in[i]))
                                             : bf16_from_f64(in[i]);
      }
      return;
  }
}

}  // namespace pev::core
#endif  // HWY_ONCE
