// Double-double building blocks on Highway vectors, for the fast engine's kernel. Each states the
// bound that oracle/fast_engine.md uses (u = 2^-53, round to nearest, no underflow). Written by
// hand: Highway has no double-double arithmetic. Exactness needs -ffp-contract=off (set globally).

// Per-target include guard (Highway's pattern): re-included once for every target.
#if defined(PEV_ORACLE_FAST_ENGINE_DD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_ORACLE_FAST_ENGINE_DD_INL_H_
#undef PEV_ORACLE_FAST_ENGINE_DD_INL_H_
#else
#define PEV_ORACLE_FAST_ENGINE_DD_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace pev::oracle::fast::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// hi + lo, |lo| <= 2u |hi| unless stated otherwise.
template <class V>
struct DD {
  V hi, lo;
};

// s + e = a + b exactly, |e| <= ulp(s)/2 (Knuth's TwoSum).
template <class V>
HWY_INLINE DD<V> TwoSum(V a, V b) {
  const V s = hn::Add(a, b);
  const V bb = hn::Sub(s, a);
  return {s, hn::Add(hn::Sub(a, hn::Sub(s, bb)), hn::Sub(b, bb))};
}

// s + e = a + b exactly when a == 0 or exponent(a) >= exponent(b), e.g. |a| >= |b| (Dekker).
template <class V>
HWY_INLINE DD<V> FastTwoSum(V a, V b) {
  const V s = hn::Add(a, b);
  return {s, hn::Sub(b, hn::Sub(s, a))};
}

// p + e = a * b exactly: with the FMA where the target has one, else Dekker's product with
// Veltkamp's splitting (|a|, |b| < 2^996 so the split cannot overflow).
template <class D, class V = hn::Vec<D>>
HWY_INLINE DD<V> TwoProd(D d, V a, V b) {
  const V p = hn::Mul(a, b);
#if HWY_NATIVE_FMA
  (void)d;
  return {p, hn::MulSub(a, b, p)};
#else
  const V split = hn::Set(d, 134217729.0);  // 2^27 + 1
  const V ca = hn::Mul(split, a);
  const V cb = hn::Mul(split, b);
  const V a1 = hn::Sub(ca, hn::Sub(ca, a));
  const V a2 = hn::Sub(a, a1);
  const V b1 = hn::Sub(cb, hn::Sub(cb, b));
  const V b2 = hn::Sub(b, b1);
  V e = hn::Sub(hn::Mul(a1, b1), p);
  e = hn::Add(e, hn::Mul(a1, b2));
  e = hn::Add(e, hn::Mul(a2, b1));
  return {p, hn::Add(e, hn::Mul(a2, b2))};
#endif
}

// x * y, normalized (|lo| <= u |hi|). For |x.lo| <= 2u |x.hi| and |y.lo| <= 2u |y.hi| the relative
// error is <= 16.01 u^2 (fast_engine.md, D1), whether MulAdd is fused or not.
template <class D, class V = hn::Vec<D>>
HWY_INLINE DD<V> MulDD(D d, DD<V> x, DD<V> y) {
  const DD<V> p = TwoProd(d, x.hi, y.hi);
  V e = hn::MulAdd(x.hi, y.lo, p.lo);
  e = hn::MulAdd(x.lo, y.hi, e);
  return FastTwoSum(p.hi, e);
}

// x + y, normalized, for sums without cancellation, |x + y| >= (|x| + |y|) / 4: the error is
// <= 5.01 u^2 (|x| + |y|) (fast_engine.md, D2).
template <class V>
HWY_INLINE DD<V> AddDD(DD<V> x, DD<V> y) {
  const DD<V> s = TwoSum(x.hi, y.hi);
  return FastTwoSum(s.hi, hn::Add(s.lo, hn::Add(x.lo, y.lo)));
}

// x + y, normalized, cancellation allowed: the error is <= 5.01 u^2 (|x.hi| + |y.hi|), absolute
// (fast_engine.md, D3). AddDD with TwoSum for its closing Fast2Sum.
template <class V>
HWY_INLINE DD<V> AddDDAny(DD<V> x, DD<V> y) {
  const DD<V> s = TwoSum(x.hi, y.hi);
  return TwoSum(s.hi, hn::Add(s.lo, hn::Add(x.lo, y.lo)));
}

template <class V>
HWY_INLINE DD<V> Negate(DD<V> x) {
  return {hn::Neg(x.hi), hn::Neg(x.lo)};
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::oracle::fast::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_ORACLE_FAST_ENGINE_DD_INL_H_
