// The fast engine's kernel, compiled once per SIMD target (Highway's dynamic dispatch). Step names
// (R, K3, T1, ...) refer to oracle/fast_engine.md, which derives the error bound each step relies
// on; the bound is summed at the end of SinCos (B) and used by the rounding test (T1, T2).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peverify/oracle/fast_engine_kernel.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Re-included once per target, after foreach_target.h.
#include <algorithm>
#include <cstring>

#include "hwy/highway.h"
#include "peverify/encoding/format.h"
#include "peverify/oracle/fast_engine_dd-inl.h"
#include "peverify/oracle/fast_engine_kernel.h"

HWY_BEFORE_NAMESPACE();
namespace pev::oracle::fast::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class V>
struct Lanes {
  DD<V> sin, cos;
  V sin_bound, cos_bound;  // on |hi + lo - exact|
};

// sin and cos of pos * (t0 + t1 + t2) quarter turns, with their bounds (fast_engine.md, B).
template <class D, class V = hn::Vec<D>>
HWY_INLINE Lanes<V> SinCos(D d, V pos, V t0, V t1, V t2, const double* HWY_RESTRICT table) {
  const hn::RebindToSigned<D> di;
  const auto k = [d](double x) { return hn::Set(d, x); };

  // R1-R9: pos t = n0 + n1 + r up to eps_R; r = r.hi + r.lo exactly, |r| <= 1/2 + 2^-50.
  const DD<V> p0 = TwoProd(d, pos, t0);
  const DD<V> p1 = TwoProd(d, pos, t1);
  const V h2 = hn::Mul(pos, t2);
  const V n0 = hn::Round(p0.hi);
  const DD<V> a = TwoSum(p0.lo, p1.hi);
  const DD<V> c = TwoSum(hn::Sub(p0.hi, n0), a.hi);  // p0.hi - n0 is exact
  const V n1 = hn::Round(c.hi);
  const V tail = hn::Add(hn::Add(hn::Add(h2, p1.lo), a.lo), c.lo);
  const DD<V> r = TwoSum(hn::Sub(c.hi, n1), tail);  // c.hi - n1 is exact
  // The quadrant (n0 + n1) mod 4: n0 mod 4 exactly in double, then the small integer's low bits.
  const V m0 = hn::NegMulAdd(hn::Floor(hn::Mul(n0, k(0.25))), k(4.0), n0);
  const auto quadrant =
      hn::And(hn::BitCast(di, hn::Add(hn::Add(m0, n1), k(0x1.8p52))), hn::Set(di, 3));

  // K1: the nearest table point j/512 (|j| <= 256); NaN lanes (pairs never decided) read entry 0.
  const V j = hn::Round(hn::Mul(r.hi, k(512.0)));
  const V ja = hn::IfThenElseZero(hn::Le(hn::Abs(j), k(256.0)), hn::Abs(j));
  const auto index = hn::ShiftLeft<2>(
      hn::Sub(hn::BitCast(di, hn::Add(ja, k(0x1p52))), hn::BitCast(di, k(0x1p52))));
  const V j_sign = hn::And(j, hn::SignBit(d));  // sin(-x) = -sin(x): flip the tabulated sin
  const DD<V> S{hn::Xor(hn::GatherIndex(d, table, index), j_sign),
                hn::Xor(hn::GatherIndex(d, table + 1, index), j_sign)};
  const DD<V> C{hn::GatherIndex(d, table + 2, index), hn::GatherIndex(d, table + 3, index)};

  // K2, K3: y = (r - j/512) pi/2, |y| <= 2^-9.348; r.hi - j/512 is exact.
  const V zh = hn::NegMulAdd(j, k(1.0 / 512), r.hi);
  const DD<V> yp = TwoProd(d, zh, k(kHalfPiHi));
  const V yt = hn::MulAdd(r.lo, k(kHalfPiHi), hn::Mul(zh, k(kHalfPiLo)));
  const DD<V> y = FastTwoSum(yp.hi, hn::Add(yp.lo, yt));

  // K4: u = y^2 (relative error <= 2^-103), normalized.
  const DD<V> up = TwoProd(d, y.hi, y.hi);
  const DD<V> u = FastTwoSum(up.hi, hn::MulAdd(hn::Add(y.hi, y.hi), y.lo, up.lo));

  // K5: sin y - y = y u (-1/6 + gs(u)) and cos y - 1 = u (-1/2 + gc(u)); gs, gc in double.
  const V gs = hn::Mul(
      u.hi, hn::MulAdd(hn::MulAdd(u.hi, k(1.0 / 362880), k(-1.0 / 5040)), u.hi, k(1.0 / 120)));
  const V gc =
      hn::Mul(u.hi, hn::MulAdd(hn::MulAdd(hn::MulAdd(u.hi, k(-1.0 / 3628800), k(1.0 / 40320)), u.hi,
                                          k(-1.0 / 720)),
                               u.hi, k(1.0 / 24)));
  DD<V> ps = FastTwoSum(k(kMinusSixthHi), gs);
  ps.lo = hn::Add(ps.lo, k(kMinusSixthLo));
  const DD<V> qc = FastTwoSum(k(-0.5), gc);
  const DD<V> sy = AddDD(y, MulDD(d, MulDD(d, y, u), ps));              // sin y
  const DD<V> cy = AddDD(DD<V>{k(1.0), hn::Zero(d)}, MulDD(d, u, qc));  // cos y

  // K6: the rotation by the table point; no cancellation in either sum.
  const DD<V> sx = AddDD(MulDD(d, S, cy), MulDD(d, C, sy));
  const DD<V> cx = AddDD(MulDD(d, C, cy), Negate(MulDD(d, S, sy)));

  // K7: sin(n pi/2 + x) is sin x, cos x, -sin x, -cos x for n = 0, 1, 2, 3 (cos: n + 1).
  const auto swap = hn::RebindMask(d, hn::Ne(hn::And(quadrant, hn::Set(di, 1)), hn::Zero(di)));
  const V sin_sign = hn::BitCast(d, hn::ShiftLeft<62>(hn::And(quadrant, hn::Set(di, 2))));
  const V cos_sign =
      hn::BitCast(d, hn::ShiftLeft<62>(hn::And(hn::Add(quadrant, hn::Set(di, 1)), hn::Set(di, 2))));
  Lanes<V> out;
  out.sin = {hn::Xor(hn::IfThenElse(swap, cx.hi, sx.hi), sin_sign),
             hn::Xor(hn::IfThenElse(swap, cx.lo, sx.lo), sin_sign)};
  out.cos = {hn::Xor(hn::IfThenElse(swap, sx.hi, cx.hi), cos_sign),
             hn::Xor(hn::IfThenElse(swap, sx.lo, cx.lo), cos_sign)};

  // B: 2^-89 |value| (kernel) + 2^-101 |r| (y's rounding) + (pi/2) E_r (reduction) + underflow.
  const V base = hn::MulAdd(hn::Abs(r.hi), k(0x1p-101),
                            hn::MulAdd(hn::Abs(c.hi), k(0x1p-103),
                                       hn::MulAdd(hn::Abs(p0.hi), k(0x1p-154), k(0x1p-1000))));
  out.sin_bound = hn::MulAdd(hn::Abs(out.sin.hi), k(0x1p-89), base);
  out.cos_bound = hn::MulAdd(hn::Abs(out.cos.hi), k(0x1p-89), base);
  return out;
}

// A: the values times the attention factor, M = MulDD(v, A) (D1), and the bound
// |A_h| B + 2^-100 |M_h|, which covers |A| |v - V| and the product's error (fast_engine.md, A).
template <class D, class V = hn::Vec<D>>
HWY_INLINE void Scale(D d, const DD<V>& attention, Lanes<V>& e) {
  const V a = hn::Abs(attention.hi);
  e.sin = MulDD(d, e.sin, attention);
  e.cos = MulDD(d, e.cos, attention);
  e.sin_bound = hn::MulAdd(hn::Abs(e.sin.hi), hn::Set(d, 0x1p-100), hn::Mul(a, e.sin_bound));
  e.cos_bound = hn::MulAdd(hn::Abs(e.cos.hi), hn::Set(d, 0x1p-100), hn::Mul(a, e.cos_bound));
}

// N: sin and cos at anchor + j from the values at the anchor and at j, each within its bound:
// sin(a + b) = sin a cos b + cos a sin b, cos(a + b) = cos a cos b - sin a sin b. The bound, the
// four inputs' bounds and 2^-100 for the products and sums, covers the cosine's cancellation
// (fast_engine.md, N).
template <class D, class V = hn::Vec<D>>
HWY_INLINE Lanes<V> Rotate(D d, const Lanes<V>& a, const Lanes<V>& j) {
  Lanes<V> out;
  out.sin = AddDDAny(MulDD(d, a.sin, j.cos), MulDD(d, a.cos, j.sin));
  out.cos = AddDDAny(MulDD(d, a.cos, j.cos), Negate(MulDD(d, a.sin, j.sin)));
  const V inputs = hn::Add(hn::Add(a.sin_bound, a.cos_bound), hn::Add(j.sin_bound, j.cos_bound));
  // Inputs this far off are sent back (an infinite bound decides nothing): N1 needs them small.
  const V bound = hn::MulAdd(inputs, hn::Set(d, 1 + 0x1p-40), hn::Set(d, 0x1p-100));
  out.sin_bound = out.cos_bound =
      hn::IfThenElse(hn::Gt(inputs, hn::Set(d, 0x1p-60)), hn::Inf(d), bound);
  return out;
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE Lanes<V> LoadValues(D d, const ValuesAt& v, size_t i) {
  Lanes<V> e;
  e.sin = {hn::LoadU(d, v.sin_hi + i), hn::LoadU(d, v.sin_lo + i)};
  e.cos = {hn::LoadU(d, v.cos_hi + i), hn::LoadU(d, v.cos_lo + i)};
  e.sin_bound = hn::LoadU(d, v.sin_bound + i);
  e.cos_bound = hn::LoadU(d, v.cos_bound + i);
  return e;
}

// Whole vectors: RowValues are kPad longer than their row.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void StoreValues(D d, const Lanes<V>& e, RowValues& v, size_t i) {
  hn::StoreU(e.sin.hi, d, v.sin_hi.data() + i);
  hn::StoreU(e.sin.lo, d, v.sin_lo.data() + i);
  hn::StoreU(e.sin_bound, d, v.sin_bound.data() + i);
  hn::StoreU(e.cos.hi, d, v.cos_hi.data() + i);
  hn::StoreU(e.cos.lo, d, v.cos_lo.data() + i);
  hn::StoreU(e.cos_bound, d, v.cos_bound.data() + i);
}

// Whether every real within `bound` of v.hi + v.lo rounds to v.hi in float64. RN is monotone, so
// it suffices that the two ends do, each computed as v.hi + (v.lo -+ bound); the bound's slack
// covers the rounding of v.lo -+ bound (fast_engine.md, T1).
template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Mask<D> RoundsToHi(D /*d*/, const DD<V>& v, V bound) {
  return hn::And(hn::Eq(hn::Add(v.hi, hn::Sub(v.lo, bound)), v.hi),
                 hn::Eq(hn::Add(v.hi, hn::Add(v.lo, bound)), v.hi));
}

// x rounded to nearest even in the format with P significand bits and smallest normal 2^EMIN
// (with subnormals and signed zeros), and whether x is one of the format's midpoints: where x is
// not, every real that rounds to x in float64 rounds to the result in the format too (T2).
template <int P, int EMIN, class D, class V = hn::Vec<D>>
HWY_INLINE V RoundToFormat(D d, V x, hn::Mask<D>& midpoint) {
  const hn::RebindToSigned<D> di;
  const auto emin_bits = hn::Set(di, int64_t{EMIN + 1023});
  const V sign = hn::And(x, hn::SignBit(d));
  const V ax = hn::Abs(x);
  auto e = hn::ShiftRight<52>(hn::BitCast(di, ax));
  e = hn::IfThenElse(hn::Lt(e, emin_bits), emin_bits, e);
  // The format's quantum at |x|, 2^(max(exponent, EMIN) - P + 1), and rounding to a multiple of
  // it by adding and subtracting 1.5 * 2^52 quanta (exact for |x| < 2^51 quanta).
  const V q = hn::BitCast(d, hn::ShiftLeft<52>(hn::Sub(e, hn::Set(di, int64_t{P - 1}))));
  const V shifter = hn::Mul(q, hn::Set(d, 0x1.8p52));
  const V o = hn::Sub(hn::Add(ax, shifter), shifter);
  midpoint = hn::Eq(hn::Abs(hn::Sub(ax, o)), hn::Mul(q, hn::Set(d, 0.5)));  // both exact
  return hn::Xor(o, sign);
}

// Rounds one vector of elements and stores it; records the lanes not decided. R: Row or
// RotatedRow.
template <int P, int EMIN, class D, class R, class V = hn::Vec<D>>
HWY_INLINE void RoundAndStore(D d, const Lanes<V>& e, const R& row, size_t i, size_t& undecided) {
  const size_t lanes = hn::Lanes(d);
  auto ok = hn::And(RoundsToHi(d, e.sin, e.sin_bound), RoundsToHi(d, e.cos, e.cos_bound));
  V sin_out = e.sin.hi, cos_out = e.cos.hi;
  if constexpr (P < 53) {
    hn::Mask<D> sin_mid, cos_mid;
    sin_out = RoundToFormat<P, EMIN>(d, e.sin.hi, sin_mid);
    cos_out = RoundToFormat<P, EMIN>(d, e.cos.hi, cos_mid);
    ok = hn::AndNot(hn::Or(sin_mid, cos_mid), ok);
  }
  const size_t n = std::min(lanes, row.count - i);
  if (n == lanes) {
    hn::StoreU(sin_out, d, row.out.sin_rounded + i);
    hn::StoreU(cos_out, d, row.out.cos_rounded + i);
    hn::StoreU(e.sin.hi, d, row.out.sin_exact + i);
    hn::StoreU(e.cos.hi, d, row.out.cos_exact + i);
  } else {  // the row's last, partial vector
    HWY_ALIGN double part[4][HWY_MAX_BYTES / sizeof(double)];
    hn::Store(sin_out, d, part[0]);
    hn::Store(cos_out, d, part[1]);
    hn::Store(e.sin.hi, d, part[2]);
    hn::Store(e.cos.hi, d, part[3]);
    std::memcpy(row.out.sin_rounded + i, part[0], n * sizeof(double));
    std::memcpy(row.out.cos_rounded + i, part[1], n * sizeof(double));
    std::memcpy(row.out.sin_exact + i, part[2], n * sizeof(double));
    std::memcpy(row.out.cos_exact + i, part[3], n * sizeof(double));
  }
  if (!hn::AllTrue(d, ok)) {
    uint8_t bits[HWY_MAX_BYTES / sizeof(double) / 8 + 1] = {};
    hn::StoreMaskBits(d, hn::Not(ok), bits);
    for (size_t lane = 0; lane < n; ++lane)
      if ((bits[lane / 8] >> (lane % 8)) & 1)
        row.out.undecided[undecided++] = static_cast<uint32_t>(i + lane);
  }
}

// kScaled: multiply by the attention factor (recipe tables); plain tables never pay for it.
// kKeep: also keep the values before rounding and A (an anchor row).
template <int P, int EMIN, bool kScaled, bool kKeep>
size_t EvaluateRowFor(const Row& row) {
  const hn::ScalableTag<double> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  const double* HWY_RESTRICT table = sincos_table();
  const V pos = hn::Set(d, row.position);
  const DD<V> attention{hn::Set(d, row.attention_hi), hn::Set(d, row.attention_lo)};
  size_t undecided = 0;
  const auto at = [&](size_t i) {
    Lanes<V> e = SinCos(d, pos, hn::LoadU(d, row.pairs.t0 + i), hn::LoadU(d, row.pairs.t1 + i),
                        hn::LoadU(d, row.pairs.t2 + i), table);
    if constexpr (kKeep) StoreValues(d, e, *row.keep, i);
    if constexpr (kScaled) Scale(d, attention, e);
    return e;
  };
  // Two vectors per step: each is one long dependent chain, two give the core independent work.
  for (size_t i = 0; i < row.count; i += 2 * lanes) {
    const Lanes<V> e0 = at(i);
    const Lanes<V> e1 = at(i + lanes);
    RoundAndStore<P, EMIN>(d, e0, row, i, undecided);
    if (i + lanes < row.count) RoundAndStore<P, EMIN>(d, e1, row, i + lanes, undecided);
  }
  return undecided;
}

// A row rotated from its anchor (N), rounded and stored as EvaluateRowFor's.
template <int P, int EMIN, bool kScaled>
size_t EvaluateRotatedRowFor(const RotatedRow& row) {
  const hn::ScalableTag<double> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  const DD<V> attention{hn::Set(d, row.attention_hi), hn::Set(d, row.attention_lo)};
  size_t undecided = 0;
  for (size_t i = 0; i < row.count; i += lanes) {
    Lanes<V> e = Rotate(d, LoadValues(d, row.anchor, i), LoadValues(d, row.offset, i));
    if constexpr (kScaled) Scale(d, attention, e);
    RoundAndStore<P, EMIN>(d, e, row, i, undecided);
  }
  return undecided;
}

// Calls f.template operator()<P, EMIN>() for the target format's precision and exponent range.
template <class F>
size_t ForFormat(Dtype target, F&& f) {
  constexpr FormatTraits f64 = traits_of(Dtype::kFloat64), f32 = traits_of(Dtype::kFloat32),
                         f16 = traits_of(Dtype::kFloat16), bf16 = traits_of(Dtype::kBFloat16);
  switch (target) {
    case Dtype::kFloat64:
      return f.template operator()<f64.precision, f64.min_exponent>();
    case Dtype::kFloat32:
      return f.template operator()<f32.precision, f32.min_exponent>();
    case Dtype::kFloat16:
      return f.template operator()<f16.precision, f16.min_exponent>();
    case Dtype::kBFloat16:
      break;
  }
  return f.template operator()<bf16.precision, bf16.min_exponent>();
}

size_t EvaluateRow(const Row& row, Dtype target) {
  const bool scaled = row.attention_hi != 1 || row.attention_lo != 0;
  return ForFormat(target, [&]<int P, int EMIN>() {
    if (row.keep)
      return scaled ? EvaluateRowFor<P, EMIN, true, true>(row)
                    : EvaluateRowFor<P, EMIN, false, true>(row);
    return scaled ? EvaluateRowFor<P, EMIN, true, false>(row)
                  : EvaluateRowFor<P, EMIN, false, false>(row);
  });
}

size_t EvaluateRotatedRow(const RotatedRow& row, Dtype target) {
  const bool scaled = row.attention_hi != 1 || row.attention_lo != 0;
  return ForFormat(target, [&]<int P, int EMIN>() {
    return scaled ? EvaluateRotatedRowFor<P, EMIN, true>(row)
                  : EvaluateRotatedRowFor<P, EMIN, false>(row);
  });
}
Detail EvaluateDetail(double position, double t0, double t1, double t2, double attention_hi,
                      double attention_lo) {
  const hn::ScalableTag<double> d;
  auto e = SinCos(d, hn::Set(d, position), hn::Set(d, t0), hn::Set(d, t1), hn::Set(d, t2),
                  sincos_table());
  if (attention_hi != 1 || attention_lo != 0)
    Scale(d, DD<hn::Vec<decltype(d)>>{hn::Set(d, attention_hi), hn::Set(d, attention_lo)}, e);
  return {hn::GetLane(e.sin.hi), hn::GetLane(e.sin.lo), hn::GetLane(e.sin_bound),
          hn::GetLane(e.cos.hi), hn::GetLane(e.cos.lo), hn::GetLane(e.cos_bound)};
}

Detail EvaluateRotatedDetail(double anchor, double offset, double t0, double t1, double t2,
                             double attention_hi, double attention_lo) {
  const hn::ScalableTag<double> d;
  const auto values = [&](double position) {
    return SinCos(d, hn::Set(d, position), hn::Set(d, t0), hn::Set(d, t1), hn::Set(d, t2),
                  sincos_table());
  };
  auto e = Rotate(d, values(anchor), values(offset));
  if (attention_hi != 1 || attention_lo != 0)
    Scale(d, DD<hn::Vec<decltype(d)>>{hn::Set(d, attention_hi), hn::Set(d, attention_lo)}, e);
  return {hn::GetLane(e.sin.hi), hn::GetLane(e.sin.lo), hn::GetLane(e.sin_bound),
          hn::GetLane(e.cos.hi), hn::GetLane(e.cos.lo), hn::GetLane(e.cos_bound)};
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::oracle::fast::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pev::oracle::fast {

HWY_EXPORT(EvaluateRow);
HWY_EXPORT(EvaluateRotatedRow);
HWY_EXPORT(EvaluateDetail);
HWY_EXPORT(EvaluateRotatedDetail);
HWY_EXPORT(TargetName);

size_t evaluate_row(const Row& row, Dtype target) {
  return HWY_DYNAMIC_DISPATCH(EvaluateRow)(row, target);
}

size_t evaluate_rotated_row(const RotatedRow& row, Dtype target) {
  return HWY_DYNAMIC_DISPATCH(EvaluateRotatedRow)(row, target);
}

Detail evaluate_rotated_detail(double anchor, double offset, double t0, double t1, double t2,
                               double attention_hi, double attention_lo) {
  return HWY_DYNAMIC_DISPATCH(EvaluateRotatedDetail)(anchor, offset, t0, t1, t2, attention_hi,
                                                     attention_lo);
}

void RowValues::resize(size_t count) {
  for (auto* v : {&sin_hi, &sin_lo, &sin_bound, &cos_hi, &cos_lo, &cos_bound})
    v->resize(count + kPad);
}

void RowValues::set_exact(double sin, double cos) {
  std::fill(sin_hi.begin(), sin_hi.end(), sin);
  std::fill(cos_hi.begin(), cos_hi.end(), cos);
  for (auto* v : {&sin_lo, &sin_bound, &cos_lo, &cos_bound}) std::fill(v->begin(), v->end(), 0.0);
}

ValuesAt values_at(const RowValues& v, size_t first) {
  return {v.sin_hi.data() + first, v.sin_lo.data() + first, v.sin_bound.data() + first,
          v.cos_hi.data() + first, v.cos_lo.data() + first, v.cos_bound.data() + first};
}

Detail evaluate_detail(double position, double t0, double t1, double t2, double attention_hi,
                       double attention_lo) {
  return HWY_DYNAMIC_DISPATCH(EvaluateDetail)(position, t0, t1, t2, attention_hi, attention_lo);
}

const char* dispatched_target() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace pev::oracle::fast
#endif  // HWY_ONCE
