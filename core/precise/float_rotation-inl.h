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
// (Cauchy-Schwarz; both pairs lie within a few u of circles of radius A~ and 1) and
// |C_f s_f| <= A~ (1 + 2^-22.9):
//   |y_f - y_d| <= 2^-23 (1 + 2^-25) (|S c| + |C s|)     inputs rounded to float
//                + 2^-24 |C_f s_f|                      the float product
//                + 2^-53 (|C s| + |y_d|)                the double rotation
//                + 2^-24 |y_f|                          the FMA (RN: within u of its result)
// and with A~ <= A (1 + 2^-53) and y_d's own error, |y_f - A v| <= A 3 2^-24 (1 + 2^-23.1) +
// 2^-24 |y_f| <= A B + 2^-24 |y_f| =: E(y_f), B = 3 2^-24 (1 + 2^-22) (kFloatRotationBound,
// precise_fill.h). The old bound A 2^-22 (1 + 2^-18) took |y_f| <= A; small values, the only ones
// in doubt, err by at most about 3/4 of it. Anchors, products and sums below float's normal range
// err by at most 2^-149 absolutely each, far inside the slack while A >= 2^-60; float16 stays
// finite while A <= 2^15.
//
// Faithful rounding. Let x = A v and r the 16-bit value nearest y_f (either tie). If r is not
// one of the two values bracketing x, r's neighbour q on x's side lies between them, x included
// (x = q: the only faithful value is q). r is at least as near y_f as q is, so y_f lies on r's
// side of their midpoint and E(y_f) >= |y_f - x| >= |r - q| / 2. Spacing never shrinks away from
// zero, so |r - q| >= g(|r|), the gap below |r| (g(0): the least subnormal), and |y_f| <= |r| +
// half the gap above it. Hence r is faithful wherever g(|r|) > 2 E(|r| + that half gap): a vector
// of patterns is kept when every magnitude is at least float_rotation_limit (precise_fill.h),
// whose every pattern meets it, and its values otherwise come from the double rotation. For A = 1
// that keeps |r| >= 2^-11 + 2^-21 in float16 (the gap below 2^-11 is 2^-22, under 2 E = 2^-21.4,
// which 2^-21 exceeds) and |r| >= 2^-14 + 2^-21 in bfloat16: the double rotation takes about (4/pi)
// 2^-11 and (4/pi) 2^-14 of the pairs. The rounded values alone decide: there is no threshold on
// y_f or x to bound first.

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
// float-first sinks rotate with it and round with FloatPatterns, and take from the double rotation
// the same values, each whose pattern PatternBelow marks: a table's values depend neither on its
// layout nor on the vector length.
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

// The magnitudes of 16-bit patterns (sign cleared), as signed lanes: they compare as values.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToSigned<D>> Magnitudes(D d, hn::Vec<D> bits) {
  return hn::BitCast(hn::RebindToSigned<D>(), hn::And(bits, hn::Set(d, 0x7fff)));
}

// The lanes of 16-bit patterns whose value the float rotation does not round (limit:
// float_rotation_limit, precise_fill.h).
template <class D>
HWY_INLINE hn::Mask<D> PatternBelow(D d, hn::Vec<D> bits, int16_t limit) {
  const hn::RebindToSigned<D> di;
  return hn::RebindMask(d, hn::Lt(Magnitudes(d, bits), hn::Set(di, limit)));
}

// Whether some pattern is of a value the float rotation does not round.
template <class D>
HWY_INLINE bool SmallPatterns(D d, hn::Vec<D> bits, int16_t limit) {
  return !hn::AllFalse(d, PatternBelow(d, bits, limit));
}

#endif  // HWY_TARGET != HWY_SCALAR

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_PRECISE_FLOAT_ROTATION_INL_H_
