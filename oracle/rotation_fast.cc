// The fast engine's rotation: x C - y S in double-double from the fast engine's double-double C
// and S (fast::evaluate_detail, with their bounds), and the rounding test of fast_engine.md (T1,
// T2). Vectorised with Highway (one element per lane, each with its own C and S), compiled once
// per SIMD target; every step is a correctly rounded IEEE operation or an exact product error
// (FMA, or Dekker's product where the target has none), so every target gives the same bits.
//
// Error bound (u = 2^-53, RN to nearest even, -ffp-contract=off; c = c_h + c_l with |c - C| <=
// beta_c and |c_l| <= 2u |c_h|, s likewise; x, y doubles, exact). With Sigma = |x c_h| + |y s_h|:
//   p + e = x c_h and p' + e' = y s_h exactly (TwoProd, std::fma), |e| <= u |p|.
//   q = RN(x c_l): |q - x c_l| <= 2u^2 |x c_h|; q' likewise: 2u^2 Sigma in all.
//   h + l = p - p' exactly (TwoSum), |l| <= u (|p| + |p'|).
//   m = RN(e - e'): u^2 (1 + u) Sigma.  n = RN(q - q'): 2u^2 (1 + u) Sigma.
//   RN(m + n): |m + n| <= 3u (1 + u)^2 Sigma, so 3u^2 (1 + u)^2 Sigma.
//   t = RN(l + RN(m + n)): 4u^2 (1 + u)^3 Sigma.  v_h + v_l = h + t exactly (TwoSum).
//   So |v_h + v_l - (x c - y s)| <= 12u^2 (1 + u)^3 Sigma < 2^-102.4 Sigma, and
//   |v_h + v_l - (x C - y S)| <= |x| beta_c + |y| beta_s + 2^-102.4 Sigma + 2^-1070,
// the last term for underflow: x, y, c_h, s_h are each 0 or in [2^-300, 2^300] (else the element
// goes to MPFR), so products and their TwoProd errors stay normal, and only q, q', m, n and the
// sums can underflow, each by <= 2^-1075. The code computes E = |x| beta_c + |y| beta_s +
// 2^-100 (|p| + |p'|) + 2^-1000 (>= 2x the underflow and 5x the arithmetic terms) in six
// roundings, then E' = E (1 + 2^-40) + 2^-52 |v_l| (two more): E' (1 - u) >= the bound + u |v_l|,
// which covers the rounding of v_l -+ E' in T1. Decided in float64 when v_h + (v_l -+ E') both
// round to v_h; in the target when v_h is also not one of its midpoints (T2). v_h = 0 never
// passes (E' > 0): the exact zeros are x = y = 0, and x = 0 at position 0 (S = 0).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peverify/oracle/rotation_fast.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Re-included once per target, after foreach_target.h.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "hwy/highway.h"
#include "peverify/encoding/format.h"
#include "peverify/oracle/fast_engine_dd-inl.h"
#include "peverify/oracle/rotation_engines.h"

HWY_BEFORE_NAMESPACE();
namespace pev::oracle::rotation_fast::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using fast::HWY_NAMESPACE::TwoProd;
using fast::HWY_NAMESPACE::TwoSum;

// What the rounding to the target needs, as constants.
struct Target {
  bool float64;
  double min_normal;  // 2^min_exponent
  double ulp_scale;   // 2^(1 - precision): the quantum at 2^e is 2^e times it
  double overflow;    // 2^(emax + 1): from here on, infinity
  double largest;     // the largest finite value
};

Target target_of(Dtype dtype) {
  const FormatTraits f = traits_of(dtype);
  const int emax = 1 - f.min_exponent;
  return {dtype == Dtype::kFloat64, std::ldexp(1.0, f.min_exponent),
          std::ldexp(1.0, 1 - f.precision), std::ldexp(1.0, emax + 1),
          (2.0 - std::ldexp(1.0, 1 - f.precision)) * std::ldexp(1.0, emax)};
}

// 0, or a magnitude whose products and their errors stay in double's normal range.
template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Mask<D> InRange(D d, V v) {
  const V a = hn::Abs(v);
  return hn::Or(hn::Eq(a, hn::Zero(d)),
                hn::And(hn::Ge(a, hn::Set(d, 0x1p-300)), hn::Le(a, hn::Set(d, 0x1p300))));
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Mask<D> Usable(D d, V hi, V lo, V bound) {
  return hn::And(
      hn::And(InRange(d, hi), hn::Le(hn::Abs(lo), hn::Mul(hn::Set(d, 0x1p-52), hn::Abs(hi)))),
      hn::And(hn::Ge(bound, hn::Zero(d)), hn::Le(bound, hn::Set(d, 0x1p300))));
}

// v rounded to the target, nearest even: the format's quantum q at |v| is added and removed with
// a shifter of 1.5 * 2^52 quanta (q and the shifter's quantum are equal and even). 2^e is v's
// exponent bits alone (0 for a subnormal double, whose quantum is the format's smallest, as for
// any v below the format's normal range). *midpoint: |v| lies halfway between two neighbours.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V RoundTo(D d, V v, const Target& t, hn::Mask<D>& midpoint) {
  const hn::RebindToUnsigned<D> du;
  const V a = hn::Abs(v);
  const V power = hn::BitCast(d, hn::And(hn::BitCast(du, a), hn::Set(du, 0x7ff0000000000000ull)));
  const V q = hn::Mul(hn::Max(power, hn::Set(d, t.min_normal)), hn::Set(d, t.ulp_scale));
  const V shifter = hn::Mul(q, hn::Set(d, 0x1.8p52));
  const V o = hn::Sub(hn::Add(a, shifter), shifter);
  midpoint = hn::Eq(hn::Abs(hn::Sub(a, o)), hn::Mul(q, hn::Set(d, 0.5)));
  const auto infinite = hn::Or(hn::Ge(a, hn::Set(d, t.overflow)), hn::Gt(o, hn::Set(d, t.largest)));
  const V r = hn::IfThenElse(infinite, hn::Inf(d), o);
  // v = 0 keeps its sign; the rounding of a nonzero v never gives 0 with the wrong sign.
  return hn::IfThenElse(hn::Eq(v, hn::Zero(d)), v, hn::CopySign(r, v));
}

// Elements [i, i + N) (the bound at the top of the file); a lane is decided unless the bound
// leaves the rounding open, an input is out of range, or C or S is unusable.
template <class D>
HWY_INLINE size_t RotateVector(D d, const RotationLanes& in, size_t i, const Target& t,
                               const RotationOut& out) {
  using V = hn::Vec<D>;
  const V x = hn::LoadU(d, in.x + i), y = hn::LoadU(d, in.y + i);
  const V c_hi = hn::LoadU(d, in.c.hi + i), c_lo = hn::LoadU(d, in.c.lo + i);
  const V c_bound = hn::LoadU(d, in.c.bound + i);
  const V s_hi = hn::LoadU(d, in.s.hi + i), s_lo = hn::LoadU(d, in.s.lo + i);
  const V s_bound = hn::LoadU(d, in.s.bound + i);
  const V zero = hn::Zero(d);
  // The exact zeros, as +0: x = y = 0, or x = 0 where S is exactly 0 (angle 0).
  const auto s_zero =
      hn::And(hn::And(hn::Eq(s_hi, zero), hn::Eq(s_lo, zero)), hn::Eq(s_bound, zero));
  const auto exact_zero = hn::And(hn::Eq(x, zero), hn::Or(hn::Eq(y, zero), s_zero));
  const auto usable =
      hn::And(hn::And(InRange(d, x), InRange(d, y)),
              hn::And(Usable(d, c_hi, c_lo, c_bound), Usable(d, s_hi, s_lo, s_bound)));

  const auto [p, e] = TwoProd(d, x, c_hi);
  const auto [p2, e2] = TwoProd(d, y, s_hi);
  const V q = hn::Mul(x, c_lo), q2 = hn::Mul(y, s_lo);
  const auto [h, l] = TwoSum(p, hn::Neg(p2));
  const auto [vh, vl] = TwoSum(h, hn::Add(l, hn::Add(hn::Sub(e, e2), hn::Sub(q, q2))));

  const V bound =
      hn::Add(hn::Add(hn::Add(hn::Mul(hn::Abs(x), c_bound), hn::Mul(hn::Abs(y), s_bound)),
                      hn::Mul(hn::Set(d, 0x1p-100), hn::Add(hn::Abs(p), hn::Abs(p2)))),
              hn::Set(d, 0x1p-1000));
  const V wide =
      hn::Add(hn::Mul(bound, hn::Set(d, 1 + 0x1p-40)), hn::Mul(hn::Set(d, 0x1p-52), hn::Abs(vl)));
  auto decided = hn::And(hn::Eq(hn::Add(vh, hn::Sub(vl, wide)), vh),  // T1
                         hn::Eq(hn::Add(vh, hn::Add(vl, wide)), vh));
  V rounded = vh;
  if (!t.float64) {
    hn::Mask<D> midpoint;
    rounded = RoundTo(d, vh, t, midpoint);
    decided = hn::AndNot(midpoint, decided);  // T2
  }
  decided = hn::Or(hn::And(usable, decided), exact_zero);
  hn::StoreU(hn::IfThenZeroElse(exact_zero, vh), d, out.exact + i);
  hn::StoreU(hn::IfThenZeroElse(exact_zero, rounded), d, out.rounded + i);
  hn::StoreU(hn::IfThenElseZero(decided, hn::Set(d, 1.0)), d, out.decided + i);
  return hn::CountTrue(d, hn::Not(decided));
}

size_t RotateLanesImpl(const RotationLanes& in, size_t n, Dtype dtype, const RotationOut& out) {
  const hn::ScalableTag<double> d;
  const size_t lanes = hn::Lanes(d);
  const Target t = target_of(dtype);
  size_t i = 0, undecided = 0;
  for (; i + lanes <= n; i += lanes) undecided += RotateVector(d, in, i, t, out);
  for (; i < n; ++i) undecided += RotateVector(hn::CappedTag<double, 1>(), in, i, t, out);
  return undecided;
}

// round_double_to: RoundTo on one lane, so that the rule is written once.
double RoundOne(double v, Dtype dtype, bool* midpoint) {
  const Target t = target_of(dtype);
  bool half = false;
  if (!t.float64) {
    const hn::CappedTag<double, 1> d;
    hn::Mask<decltype(d)> m;
    v = hn::GetLane(RoundTo(d, hn::Set(d, v), t, m));
    half = !hn::AllFalse(d, m);
  }
  if (midpoint) *midpoint = half;
  return v;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::oracle::rotation_fast::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pev::oracle {
namespace rotation_fast {
HWY_EXPORT(RotateLanesImpl);
HWY_EXPORT(RoundOne);
}  // namespace rotation_fast

size_t fast_rotate_lanes(const RotationLanes& in, size_t n, Dtype target, const RotationOut& out) {
  return HWY_DYNAMIC_DISPATCH(rotation_fast::RotateLanesImpl)(in, n, target, out);
}

double round_double_to(double v, Dtype target, bool* midpoint) {
  return HWY_DYNAMIC_DISPATCH(rotation_fast::RoundOne)(v, target, midpoint);
}

}  // namespace pev::oracle
#endif  // HWY_ONCE
