// Per-target (Highway) float rotation of the precise strategy's float16 and bfloat16 rows:
// its error bound, why rounding it is faithful above a threshold, and the rotation, rounding,
// zipping and small-value test that both float-first sinks (half_float_sinks-inl.h) share, so
// that every layout holds the same values. Included by half_float_sinks-inl.h.
//
// Error bound. S, C are the anchor's doubles (A~-scaled), c, s the table's, and y_d =
// fl(S c + fl(C s)) (or fl(C c - fl(S s))) the double sink's value, within A 2^-49.3 of the exact
// A v (precise_fill.cc). The floats are RN of each: S_f = S (1 + a), |a| <= 2^-24, likewise C_f,
// c_f, s_f, and y_f = fl(P c_f + fl(Q s_f)) with (P, Q) = (S_f, C_f) or (C_f, -S_f) (either
// product may be the rounded one: the bound is symmetric). With |S c| + |C s| <= A~ (1 + 2^-50)
// (Cauchy-Schwarz; both pairs lie within a few u of circles of radius A~ and 1), |C_f s_f| <=
// A~ (1 + 2^-22) and |y_f| <= A~ (1 + 2^-21):
//   |y_f - y_d| <= 2^-23 (1 + 2^-25) (|S c| + |C s|)     inputs rounded to float
//                + 2^-24 |C_f s_f| + 2^-24 |y_f|        the float product and FMA
//                + 2^-53 (|C s| + |y_d|)                the double rotation
//               <= A~ 2^-22 (1 + 2^-19),
// so with A~ = A (1 + 2^-53) at most, |y_f - A v| <= A 2^-22 (1 + 2^-18) =: E. Anchors below
// float's normal range add at most 2^-149 A~-free absolute error, far inside the slack while
// A >= 2^-60.
//
// Faithful rounding. Let x = A v lie in a binade of the 16-bit format with p bits (11 for float16,
// 8 for bfloat16), U the spacing there, so U >= |x| 2^-p (subnormals included). If |y_f - x| <
// U / 4, y_f is within U/4 of that binade, whose values are spaced U and include both ends, so the
// one nearest y_f is within U/2 of y_f and 3U/4 of x: one of the two bracketing x. A vector is
// rounded in float when every |y_f| >= T, which makes |x| >= T - E; U / 4 >= (T - E) 2^-(p+2) > E
// holds for T > E (1 + 2^(p+2)): E (1 + 2^13) < A 2^-9 (1 + 2^-12.9) for float16 and E (1 + 2^10)
// < A 2^-12 (1 + 2^-9.9) for bfloat16, so T = A~ 2^-9 (1 + 2^-11) and A~ 2^-12 (1 + 2^-8)
// (kFloatRotationThreshold*, precise_fill.h; A~ >= A (1 - 2^-53)), rounded up to float. Values
// below T, about (4/pi) T/A of them, go through the double rotation. The thresholds keep y_f a
// normal float (A >= 2^-60), and float16 finite (A <= 2^15).

#if defined(PEV_CORE_PRECISE_FLOAT_ROTATION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_CORE_PRECISE_FLOAT_ROTATION_INL_H_
#undef PEV_CORE_PRECISE_FLOAT_ROTATION_INL_H_
#else
#define PEV_CORE_PRECISE_FLOAT_ROTATION_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "peverify/core/precise/half_sinks-inl.h"
#include "peverify/encoding/format.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::precise::HWY_NAMESPACE {

#if HWY_TARGET != HWY_SCALAR

using DU32 = hn::RebindToUnsigned<DF>;
using DI32 = hn::RebindToSigned<DF>;
using DW16 = hn::Repartition<uint16_t, DF>;  // 4N patterns: 2N zipped pairs, a whole vector

// The float rotation of 2N pairs (the bound above): ys = fl(S c + fl(C s)) and
// yc = fl(fl(C c) - S s), i.e. (P, Q) = (S, C), and (C, -S) with the other product rounded. Both
// float-first sinks rotate with it and round with FloatPatterns, and send the same groups of
// values to the double rotation (a kind's 2N values whose patterns SmallPatterns flags): a
// table's values do not depend on its layout.
template <bool kSin, bool kCos>
HWY_INLINE void FloatRotate(hn::Vec<DF> s_a, hn::Vec<DF> c_a, hn::Vec<DF> s_j, hn::Vec<DF> c_j,
                            hn::Vec<DF>& ys, hn::Vec<DF>& yc) {
  if constexpr (kSin) ys = hn::MulAdd(s_a, c_j, hn::Mul(c_a, s_j));
  if constexpr (kCos) yc = hn::NegMulAdd(s_a, s_j, hn::Mul(c_a, c_j));
}

// bfloat16 patterns of the float rotation, in the top half of each 32-bit lane: the float's bits
// plus half an ulp, truncated. That rounds to nearest, ties away from zero: the value nearest y_f,
// which is all the faithful argument above uses (the rotated values are normal floats).
HWY_INLINE hn::Vec<DU32> BF16NearestInTopHalf(hn::Vec<DF> y) {
  const DU32 du;
  return hn::Add(hn::BitCast(du, y), hn::Set(du, 0x8000u));
}

// 2N rotated values -> their patterns (float16: its conversion, to nearest even).
template <Dtype kOut>
HWY_INLINE hn::Vec<DU16> FloatPatterns(hn::Vec<DF> y) {
  if constexpr (kOut == Dtype::kBFloat16) {
    return hn::DemoteTo(DU16(), hn::BitCast(DI32(), hn::ShiftRight<16>(BF16NearestInTopHalf(y))));
  } else {
    return ToHalfBits</*kMayBeNaN=*/false>(DF(), y, kOut, Conversion::kNearestEven);
  }
}

// The zipped row of 2N pairs from its two kinds of 2N patterns: first at even columns.
HWY_INLINE hn::Vec<DW16> ZipPatterns(hn::Vec<DU16> first, hn::Vec<DU16> second) {
  const DU32 du;
  return hn::BitCast(
      DW16(), hn::Or(hn::PromoteTo(du, first), hn::ShiftLeft<16>(hn::PromoteTo(du, second))));
}

// ZipPatterns(FloatPatterns(first), FloatPatterns(second)), in fewer instructions: bfloat16
// needs no narrowing, as each 32-bit lane's top half is its pattern (one shift and a blend).
template <Dtype kOut>
HWY_INLINE hn::Vec<DW16> FloatZipped(hn::Vec<DF> first, hn::Vec<DF> second) {
  if constexpr (kOut == Dtype::kBFloat16) {
    const DW16 dw;
    return hn::OddEven(hn::BitCast(dw, BF16NearestInTopHalf(second)),
                       hn::BitCast(dw, hn::ShiftRight<16>(BF16NearestInTopHalf(first))));
  } else {
    return ZipPatterns(FloatPatterns<kOut>(first), FloatPatterns<kOut>(second));
  }
}

// The smallest 16-bit pattern of kOut at or above t, plus one: a rounded magnitude below it is at
// most RU(t), so it flags every value whose |y| < t (rounding is monotonic and RU(t) rounds to
// itself); an unflagged one has |y| >= RU(t) >= t. Patterns of non-negative values order as their
// values, up to Inf's.
template <Dtype kOut>
int16_t PatternLimit(double t) {
  uint32_t lo = 0, hi = kOut == Dtype::kFloat16 ? 0x7c00 : 0x7f80;  // Inf: at or above any t
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (decode(mid, kOut) >= t) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return static_cast<int16_t>(lo + 1);
}

// The magnitudes of 16-bit patterns (sign cleared), as signed lanes: they compare as values.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToSigned<D>> Magnitudes(D d, hn::Vec<D> bits) {
  return hn::BitCast(hn::RebindToSigned<D>(), hn::And(bits, hn::Set(d, 0x7fff)));
}

// Whether some pattern is of a value the float rotation does not round (limit: PatternLimit).
template <class D>
HWY_INLINE bool SmallPatterns(D d, hn::Vec<D> bits, int16_t limit) {
  const hn::RebindToSigned<D> di;
  return !hn::AllFalse(di, hn::Lt(Magnitudes(d, bits), hn::Set(di, limit)));
}

#endif  // HWY_TARGET != HWY_SCALAR

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_PRECISE_FLOAT_ROTATION_INL_H_
