// Per-target (Highway) code of the precise strategy: sin and cos of pos * w computed directly,
// with the error bound that the strategy's faithful claim rests on. Included once per target by
// precise_fill.cc; the toggle below is Highway's idiom for such headers.
//
// Notation: u = 2^-53; v is the exact value sin(pos w) or cos(pos w); w = (w_hi + w_lo)(1 + e_w)
// with e_w <= frequency_error_bound() (~2^-105.7 for b <= 1e6). Every line must be compiled with
// -ffp-contract=off: a contracted a*b + c would break the exact transformations below.
//
// Result (derived step by step beside the code): for pos < 2^45,
//   |y - v| <= 4u |v| + E_arg,   E_arg <= pos w (e_w + 2^-102.3) + 2^-102.6.
// For pos < 2^24 and b <= 1e6, E_arg <= 2^-78, so y rounded once to float32 is faithful whenever
// |v| >= 2^-51 (faithful needs |y - v| <= 2^-26 |v|: see precise_fill.cc). A smaller |v| needs
// pos w within 2^-51 of a multiple of pi/2: a search over every pos < 2^24 for d = 64, b = 1e4
// finds at least 2^-27.4 (pair 6, pos 2976368), and ~2^-36 is expected over d = 4096's pairs;
// only a base constructed for it could come within 2^-51.

#if defined(PEV_CORE_PRECISE_DIRECT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_CORE_PRECISE_DIRECT_INL_H_
#undef PEV_CORE_PRECISE_DIRECT_INL_H_
#else
#define PEV_CORE_PRECISE_DIRECT_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::precise::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Error-free transformations (exact for finite inputs without overflow).

// Returns e with a * b = p + e exactly, p = fl(a * b). FMA where the target has one; otherwise
// Dekker's product with Veltkamp's split (Highway's MulSub is then not fused).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V TwoProdError(D d, V a, V b, V p) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulSub(a, b, p);
#else
  const V split = hn::Set(d, 134217729.0);  // 2^27 + 1
  const V ta = hn::Mul(split, a);
  const V a_hi = hn::Sub(ta, hn::Sub(ta, a));
  const V a_lo = hn::Sub(a, a_hi);
  const V tb = hn::Mul(split, b);
  const V b_hi = hn::Sub(tb, hn::Sub(tb, b));
  const V b_lo = hn::Sub(b, b_hi);
  V e = hn::Sub(hn::Mul(a_hi, b_hi), p);
  e = hn::Add(e, hn::Mul(a_hi, b_lo));
  e = hn::Add(e, hn::Mul(a_lo, b_hi));
  return hn::Add(e, hn::Mul(a_lo, b_lo));
#endif
}

// Knuth's TwoSum: a + b = s + e exactly, s = fl(a + b), whatever the magnitudes.
template <class V>
HWY_INLINE V TwoSum(V a, V b, V& e) {
  const V s = hn::Add(a, b);
  const V bb = hn::Sub(s, a);
  e = hn::Add(hn::Sub(a, hn::Sub(s, bb)), hn::Sub(b, bb));
  return s;
}

// pi/2 = kPio2Hi + kPio2Mid + kPio2Lo + d, |d| < 2^-163; each part is the double nearest the
// remainder (computed with 500-bit mpmath). kTwoOverPi = RN(2/pi).
inline constexpr double kPio2Hi = 0x1.921fb54442d18p+0;
inline constexpr double kPio2Mid = 0x1.1a62633145c07p-54;
inline constexpr double kPio2Lo = -0x1.f1976b7ed8fbcp-110;
inline constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;

// Positions from here on take a second reduction step (see ReduceQuarterTurns).
inline constexpr double kHugePosition = 0x1p45;

// Subtracts m pi/2 (m integer-valued, |m| < 2^54) from the angle hi + e1 + lo, where |e1|, |lo|
// <= u |hi| (1 + 2^-50). Every product with a part of pi/2 is split error-free, so m may be
// large. Returns the reduced angle as r + r_lo, r = fl(r + r_lo).
//
// Bound (x the exact angle hi + e1 + lo of DirectSinCos, R = x - m pi/2):
//  - q1 + q1e = m kPio2Hi and q2 + q2e = m kPio2Mid exactly (TwoProdError).
//  - t = hi - q1 is exact: for m = 0, q1 = 0; otherwise |hi|, |q1| >= 0.5 with equal signs
//    (|hi| >= pi/4 (1 - 2^-50) since m = round(hi 2/pi) != 0), so both are multiples of
//    ulp(min) = 2^(e-52), min in [2^e, 2^(e+1)), and |t| <= 1 < 2^(e+1): t fits in 53 bits.
//  - (s1, s1e), (s2, s2e) are exact TwoSums; the tail adds e1 + lo - q2e - q3 + s1e + s2e with
//    5 roundings, each <= u |partial sum|, where |e1|, |lo| <= u hi (1 + 2^-50), |s1e| + |s2e|
//    <= 2u (1 + |q1e| + |q2|) with |q1e|, |q2| <= u (hi + 1), and |q2e| + |q3| <= 2^-52 |q2|:
//    tail error <= 5u (2u hi + 2u) (1 + 2^-49) <= 10.01 u^2 (hi + 1) <= 2^-102.67 (hi + 1).
//  - q3 = fl(m kPio2Lo) errs by <= u m 2^-109 and m |d| <= m 2^-163: both < 2^-160 m.
//  - The final TwoSum is exact.
// So |(r + r_lo) - R| <= 2^-102.6 (hi + 1) =: E_red.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ReduceQuarterTurns(D d, V hi, V e1, V lo, V m, V& r_lo) {
  const V q1 = hn::Mul(m, hn::Set(d, kPio2Hi));
  const V q1e = TwoProdError(d, m, hn::Set(d, kPio2Hi), q1);
  const V q2 = hn::Mul(m, hn::Set(d, kPio2Mid));
  const V q2e = TwoProdError(d, m, hn::Set(d, kPio2Mid), q2);
  const V q3 = hn::Mul(m, hn::Set(d, kPio2Lo));
  const V t = hn::Sub(hi, q1);
  V s1e, s2e;
  const V s1 = TwoSum(t, hn::Neg(q1e), s1e);
  const V s2 = TwoSum(s1, hn::Neg(q2), s2e);
  V tail = hn::Add(e1, lo);
  tail = hn::Sub(tail, q2e);
  tail = hn::Sub(tail, q3);
  tail = hn::Add(tail, s1e);
  tail = hn::Add(tail, s2e);
  return TwoSum(s2, tail, r_lo);
}

// Taylor coefficients 1/n!, each correctly rounded by the compiler (n! is exact for n <= 18).
inline constexpr double kInvFact2 = 1.0 / 2;
inline constexpr double kInvFact3 = 1.0 / 6;
inline constexpr double kInvFact4 = 1.0 / 24;
inline constexpr double kInvFact5 = 1.0 / 120;
inline constexpr double kInvFact6 = 1.0 / 720;
inline constexpr double kInvFact7 = 1.0 / 5040;
inline constexpr double kInvFact8 = 1.0 / 40320;
inline constexpr double kInvFact9 = 1.0 / 362880;
inline constexpr double kInvFact10 = 1.0 / 3628800;
inline constexpr double kInvFact11 = 1.0 / 39916800;
inline constexpr double kInvFact12 = 1.0 / 479001600;
inline constexpr double kInvFact13 = 1.0 / 6227020800;
inline constexpr double kInvFact14 = 1.0 / 87178291200;
inline constexpr double kInvFact15 = 1.0 / 1307674368000;
inline constexpr double kInvFact16 = 1.0 / 20922789888000;
inline constexpr double kInvFact17 = 1.0 / 355687428096000;
inline constexpr double kInvFact18 = 1.0 / 6402373705728000;

// sin and cos of r + r_lo for |r| <= 0.81, |r_lo| <= u |r|. Taylor polynomials (exact
// coefficients up to their rounding, so the bound needs no minimax certificate):
//   sin r = r + r^3 Ps(r^2), Ps = -1/3! + z/5! - ... + z^7/17!, truncation <= r^19/19!
//         <= 2^-62.2 |r|;
//   cos r = 1 + r^2 Qc(r^2), Qc = -1/2! + z/4! - ... - z^8/18!, truncation <= r^20/20! < 2^-67.
// Bounds, z = r^2 <= 0.6561, z~ = fl(z) = z (1 + d), |d| <= u, fused or not:
//  sin: Horner's last step dominates (earlier errors are multiplied by z / 20 or less):
//    |Ps~ - Ps(z)| <= u (|Ps| + |c3| + 3 |z/5!|) + |Ps'| z u <= 0.41u; t3 = fl(r z~) =
//    r^3 (1 + 2.01u); |t3 Ps~ - r^3 Ps| <= 0.6561 |r| (0.167 * 2.01u + 0.41u) <= 0.49u |r|
//    (+ u |t3 Ps~| <= 0.11u |r| unfused); final rounding u |s~|. With |sin r| >= 0.89 |r|:
//    |s~ - sin r| <= (0.68 + 1) u |sin r| + 2^-62 |r| <= 1.7u |sin r|.
//  cos: |Qc~ - Qc(z)| <= 0.56u (+0.03u unfused) plus |Qc'| z u <= 0.03u; z~ Qc~ errs by
//    <= z 0.62u + u z |Qc| <= 0.74u (+ u |z Qc| <= 0.33u unfused); final rounding of a value in
//    [0.68, 1]: <= u/2. |c~ - cos r| <= 1.6u <= 2.33u |cos r| (cos 0.81 >= 0.689).
//  r_lo: sin(r + r_lo) = sin r + cos r r_lo + O(u^2 r^2); the FMA adds c~ r_lo and rounds once
//    (u |result|); likewise cos. Totals: <= 2.8u |sin| and <= 3.8u |cos|, i.e. <= 4u |value|.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void SinCosReduced(D d, V r, V r_lo, V& sin_out, V& cos_out) {
  const V z = hn::Mul(r, r);
  V ps = hn::Set(d, kInvFact17);
  ps = hn::MulAdd(ps, z, hn::Set(d, -kInvFact15));
  ps = hn::MulAdd(ps, z, hn::Set(d, kInvFact13));
  ps = hn::MulAdd(ps, z, hn::Set(d, -kInvFact11));
  ps = hn::MulAdd(ps, z, hn::Set(d, kInvFact9));
  ps = hn::MulAdd(ps, z, hn::Set(d, -kInvFact7));
  ps = hn::MulAdd(ps, z, hn::Set(d, kInvFact5));
  ps = hn::MulAdd(ps, z, hn::Set(d, -kInvFact3));
  const V s = hn::MulAdd(hn::Mul(r, z), ps, r);
  V qc = hn::Set(d, -kInvFact18);
  qc = hn::MulAdd(qc, z, hn::Set(d, kInvFact16));
  qc = hn::MulAdd(qc, z, hn::Set(d, -kInvFact14));
  qc = hn::MulAdd(qc, z, hn::Set(d, kInvFact12));
  qc = hn::MulAdd(qc, z, hn::Set(d, -kInvFact10));
  qc = hn::MulAdd(qc, z, hn::Set(d, kInvFact8));
  qc = hn::MulAdd(qc, z, hn::Set(d, -kInvFact6));
  qc = hn::MulAdd(qc, z, hn::Set(d, kInvFact4));
  qc = hn::MulAdd(qc, z, hn::Set(d, -kInvFact2));
  const V c = hn::MulAdd(z, qc, hn::Set(d, 1.0));
  sin_out = hn::MulAdd(c, r_lo, s);
  cos_out = hn::NegMulAdd(s, r_lo, c);
}

// sin(pos w) and cos(pos w) for pos (an integer-valued double, 0 <= pos <= 2^53) and
// w = w_hi + w_lo in (0, 1]. `huge` must be true when any lane has pos >= kHugePosition.
//
// The angle: hi = fl(pos w_hi) and e1 = pos w_hi - hi exactly; lo = fl(pos w_lo) errs by
// <= u pos |w_lo| <= 2u^2 pos w. With e_w, the angle hi + e1 + lo is within
// pos w (e_w + 2^-105) of pos w.
// Quarter turns: m = round(fl(hi kTwoOverPi)); |fl(hi kTwoOverPi) - hi 2/pi| <= 1.28u hi, so
// for hi < 2^45, |hi - m pi/2| <= (1/2 + 2^-7.6) pi/2 and, adding |e1 + lo| <= 2^-7,
// |r| <= 0.81 as SinCosReduced requires. Beyond, |r| < 6 and a second step with
// m2 = round(fl(r 2/pi)) brings it back under pi/4 (1 + 2^-50); such positions carry no claim.
// Quadrant: (sin, cos)(r + m pi/2) = (s, c), (c, -s), (-s, -c), (-c, s) for m mod 4 = 0..3: exact.
// Altogether |y - v| <= 4u |v| + E_arg (1 + 4u) with E_arg <= pos w (e_w + 2^-105) + E_red and
// hi <= pos w (1 + u), which gives the bound at the top of this file.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void DirectSinCos(D d, V pos, V w_hi, V w_lo, bool huge, V& sin_out, V& cos_out) {
  const V hi = hn::Mul(pos, w_hi);
  const V e1 = TwoProdError(d, pos, w_hi, hi);
  const V lo = hn::Mul(pos, w_lo);
  V m = hn::Round(hn::Mul(hi, hn::Set(d, kTwoOverPi)));
  V r_lo;
  V r = ReduceQuarterTurns(d, hi, e1, lo, m, r_lo);
  if (huge) {
    const V m2 = hn::Round(hn::Mul(r, hn::Set(d, kTwoOverPi)));
    V r2_lo;
    r = ReduceQuarterTurns(d, r, r_lo, hn::Zero(d), m2, r2_lo);
    r_lo = r2_lo;
    m = hn::Add(m, m2);
  }
  V s, c;
  SinCosReduced(d, r, r_lo, s, c);
  // m mod 4 in {0, 1, 2, 3}, computed exactly in double (m is an integer below 2^54).
  const V q = hn::Sub(m, hn::Mul(hn::Set(d, 4.0), hn::Floor(hn::Mul(m, hn::Set(d, 0.25)))));
  const auto q1 = hn::Eq(q, hn::Set(d, 1.0));
  const auto q2 = hn::Eq(q, hn::Set(d, 2.0));
  const auto q3 = hn::Eq(q, hn::Set(d, 3.0));
  const auto swap = hn::Or(q1, q3);
  const V sw = hn::IfThenElse(swap, c, s);
  const V cw = hn::IfThenElse(swap, s, c);
  sin_out = hn::IfThenElse(hn::Or(q2, q3), hn::Neg(sw), sw);
  cos_out = hn::IfThenElse(hn::Or(q1, q2), hn::Neg(cw), cw);
}

}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_PRECISE_DIRECT_INL_H_
