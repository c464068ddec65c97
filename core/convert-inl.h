// Per-target (Highway) conversions to the 16-bit formats, one vector at a time: the kernels of
// core/convert.cc, and of the strategies that store 16-bit tables from their own loops (precise).
// Included once per target; the toggle below is Highway's idiom for such headers.
//
// double -> float16 / bfloat16 in one correct rounding, vectorised: round to odd to float, then
// round to nearest even to the 16-bit format. Proof that this equals rounding the double once
// ("innocuous double rounding", Boldo & Melquiond, IEEE TC 57(4), 2008, Thm. 3: round to odd to
// p + 2 bits or more, then to nearest at p bits, is rounding to nearest at p bits), written for
// the grids at hand, subnormals included:
//   Let F be the floats, T the 16-bit format's finite values together with the midpoints
//   between consecutive ones and the overflow threshold (65520 for float16, 0x1.ffp127 for
//   bfloat16). Round to nearest even to the 16-bit format is constant on each open interval
//   between consecutive points of T; it only decides at the points of T.
//   (i) Every point of T is a float whose last significand bit is 0 ("even"). float16 values
//   have 11 significant bits and its midpoints 12; bfloat16's 8 and 9; a float holds 24. Below
//   2^-14 float16's values and midpoints are multiples of 2^-25 under 2^-14, i.e. normal floats
//   whose ulp is at most 2^-37: multiples of 2 ulps. bfloat16's subnormals and their midpoints
//   are multiples of 2^-134, float's subnormal quantum is 2^-149: multiples of 2^15 quanta. 0 is
//   even. So the float grid is at least 2 bits finer than T everywhere, subnormals included.
//   (ii) Round to odd, RO(x), is x when x is a float; otherwise the one of the two floats around
//   x whose last bit is 1 (beyond the largest float: the largest float, which is odd).
//   (iii) For x a float, RO(x) = x. Otherwise x lies strictly between consecutive floats a < b
//   (or above the largest), and so does no point of T (they are floats, by (i)); RO(x) is a or b
//   but odd, so not a point of T either. Hence x and RO(x) lie in the same open interval between
//   consecutive points of T, and round to the same 16-bit value, sign and overflow to Inf included.
// Round to odd itself (DemoteToOddF32): a double's significand has 53 bits, a float's 24. Clear
// the 29 low bits and set the lowest kept bit if any of them was set: the double now holds a
// 24-bit significand with the sticky bit in its last place, which for |x| in [2^-126, 2^128) is
// exactly RO(x), and converts to float exactly, whatever the rounding mode. At and beyond 2^128
// the conversion gives Inf or the largest float, and both round to the 16-bit format's Inf, as x
// does. Below 2^-126 (float subnormals) the conversion would round again: float16 rounds every
// such x to a zero of its sign either way (its smallest subnormal is 2^-24), and bfloat16 takes
// its subnormals from an exact integer rounding instead (BF16SubnormalBits). NaN stays NaN (the
// sticky bit keeps its payload non-zero) and becomes the 16-bit quiet NaN of its sign.

#if defined(PEV_CORE_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_CORE_CONVERT_INL_H_
#undef PEV_CORE_CONVERT_INL_H_
#else
#define PEV_CORE_CONVERT_INL_H_
#endif

#include "hwy/highway.h"
#include "peverify/core/implementation.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::HWY_NAMESPACE {
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

// float -> bfloat16 ties to even, left in the upper 16 bits of each lane (finite inputs): add half
// an ulp minus one, plus the kept lsb. Highway 1.0.3 has no such conversion (its DemoteTo
// truncates), so it is written here; the upper halves of two vectors pack in one ConcatOdd.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> BF16RoundedF32Bits(DF /* df */, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const auto bits = hn::BitCast(du, v);
  const auto odd = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
  return hn::Add(bits, hn::Add(hn::Set(du, 0x7fffu), odd));
}

// float -> bfloat16 bits, ties to even: BF16RoundedF32Bits, then truncate. kMayBeNaN false: the
// caller guarantees no lane is NaN (its values are bounded), and a NaN would come out as a wrong
// finite value or Inf.
template <bool kMayBeNaN = true, class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> BF16FromF32Bits(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto bits = hn::BitCast(du, v);
  const auto rounded = hn::ShiftRight<16>(BF16RoundedF32Bits(df, v));
  if constexpr (!kMayBeNaN) return rounded;
  // A NaN would round into Inf (or wrap to zero): keep its top bits and make it quiet instead.
  const auto nan = hn::Or(hn::ShiftRight<16>(bits), hn::Set(du, 0x40u));
  const auto abs_i = hn::BitCast(di, hn::And(bits, hn::Set(du, 0x7fffffffu)));
  return hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x7f800000))), nan, rounded);
}

// One vector of floats -> their 16-bit patterns, in the lower half-width vector.
template <bool kMayBeNaN = true, class DF>
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
  return hn::DemoteTo(du16, hn::BitCast(di, BF16FromF32Bits<kMayBeNaN>(df, v)));
}

// Round to odd, double -> float (see the top of this file): exact for |x| in [2^-126, 2^128) and
// for zeros, whatever the rounding mode; beyond 2^128 Inf or the largest float.
template <class DD>
HWY_INLINE hn::Vec<hn::Rebind<float, DD>> DemoteToOddF32(DD dd, hn::Vec<DD> x) {
  const hn::RebindToUnsigned<DD> du;
  const auto low = hn::Set(du, (uint64_t{1} << 29) - 1);
  const auto bits = hn::BitCast(du, x);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (hn::MaxLanes(DD()) == 8) {
    // Three instructions (test, and-not, masked or); Highway's IfThenElse adds a blend.
    const __mmask8 sticky = _mm512_test_epi64_mask(bits.raw, low.raw);
    const __m512i kept = _mm512_andnot_si512(low.raw, bits.raw);
    const __m512i odd =
        _mm512_mask_or_epi64(kept, sticky, kept, _mm512_set1_epi64(int64_t{1} << 29));
    return hn::DemoteTo(hn::Rebind<float, DD>(), hn::BitCast(dd, decltype(bits){odd}));
  }
#endif
  const auto sticky = hn::Ne(hn::And(bits, low), hn::Zero(du));  // any of the 29 low bits set
  const auto kept = hn::AndNot(low, bits);
  const auto odd = hn::IfThenElse(sticky, hn::Or(kept, hn::Set(du, uint64_t{1} << 29)), kept);
  return hn::DemoteTo(hn::Rebind<float, DD>(), hn::BitCast(dd, odd));
}

// 0 < |x| < 2^-126 -> bfloat16 bits: its subnormals are the multiples of 2^-133, and the encoding
// of k 2^-133 is k (k = 128 is the smallest normal, 0x0080, as rounding up to 2^-126 must give).
// t = |x| 2^133 < 128 is exact; k is t rounded to the nearest even integer, built from truncating
// conversions and exact differences, as Highway's Round is emulated with the rounding mode on some
// targets (SSSE3).
template <class DD>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DD>> BF16SubnormalBits(DD dd, hn::Vec<DD> x) {
  const hn::Rebind<int32_t, DD> di32;
  const auto t = hn::Mul(hn::Abs(x), hn::Set(dd, 0x1p133));
  const auto below = hn::PromoteTo(dd, hn::DemoteTo(di32, t));  // floor(t), exact
  const auto frac = hn::Sub(t, below);                          // exact
  const auto half = hn::PromoteTo(dd, hn::DemoteTo(di32, hn::Mul(below, hn::Set(dd, 0.5))));
  const auto odd = hn::Ne(below, hn::Add(half, half));
  const auto up =
      hn::Or(hn::Gt(frac, hn::Set(dd, 0.5)), hn::And(hn::Eq(frac, hn::Set(dd, 0.5)), odd));
  auto k = hn::IfThenElse(up, hn::Add(below, hn::Set(dd, 1.0)), below);
  k = hn::Add(k, hn::IfThenElseZero(hn::Lt(x, hn::Zero(dd)), hn::Set(dd, 32768.0)));  // the sign
  return hn::DemoteTo(hn::Rebind<uint16_t, DD>(), hn::DemoteTo(di32, k));
}

// The rare vector holding bfloat16 subnormals: those lanes rounded by BF16SubnormalBits, each on
// a whole vector (a mask of doubles does not select 16-bit lanes).
template <class DD>
HWY_NOINLINE hn::Vec<hn::Rebind<uint16_t, DD>> WithBF16Subnormals(
    DD dd, hn::Vec<DD> x, hn::Vec<hn::Rebind<uint16_t, DD>> bits) {
  const hn::Rebind<uint16_t, DD> du16;
  HWY_ALIGN double xs[hn::MaxLanes(dd)];
  HWY_ALIGN uint16_t out[hn::MaxLanes(du16)];
  hn::Store(x, dd, xs);
  hn::Store(bits, du16, out);
  for (size_t i = 0; i < hn::Lanes(dd); ++i) {
    const double a = xs[i] < 0 ? -xs[i] : xs[i];
    if (a > 0 && a < 0x1p-126) out[i] = hn::GetLane(BF16SubnormalBits(dd, hn::Set(dd, xs[i])));
  }
  return hn::Load(du16, out);
}

// One vector of doubles -> their 16-bit patterns, each rounded once to nearest even (for
// kTruncate: to float first, then the low bits dropped, as code that stores a float tensor
// truncated to bfloat16 does). kMayBeTiny false: the caller guarantees no lane has 0 < |x| <
// 2^-126 (bfloat16 only; float16 rounds those right anyway).
template <bool kMayBeNaN = true, bool kMayBeTiny = true, class DD>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DD>> HalfBitsFromF64(DD dd, hn::Vec<DD> x, Dtype output,
                                                             Conversion conversion) {
  const hn::Rebind<float, DD> df;
  if (output == Dtype::kBFloat16 && conversion == Conversion::kTruncate) {
    return ToHalfBits(df, hn::DemoteTo(df, x), output, conversion);
  }
  auto bits = ToHalfBits<kMayBeNaN>(df, DemoteToOddF32(dd, x), output, conversion);
  if constexpr (kMayBeTiny) {
    if (output == Dtype::kBFloat16) {
      const auto a = hn::Abs(x);
      const auto tiny = hn::And(hn::Lt(a, hn::Set(dd, 0x1p-126)), hn::Gt(a, hn::Zero(dd)));
      if (HWY_UNLIKELY(!hn::AllFalse(dd, tiny))) bits = WithBF16Subnormals(dd, x, bits);
    }
  }
  return bits;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_CONVERT_INL_H_
