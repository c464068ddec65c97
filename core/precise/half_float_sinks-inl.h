// Per-target (Highway) float-first sinks of the precise strategy for float16 and bfloat16 rows:
// the rotation in float (twice the lanes, no demotion), its result rounded to the 16-bit format
// after moving it down and up by its error bound; where both agree, that is what rounding the
// double rotation gives, bit for bit. Where they differ (a 16-bit midpoint within the bound, or a
// value near zero: about 1% of bfloat16's vectors of 16 values, 8% of float16's), those pairs go
// through the double sinks of half_sinks-inl.h, fix-up tracking included. precise_fill.cc uses
// them for bfloat16 where rounding floats to it is one instruction (AVX512_BF16), and says why
// not for float16. Included by precise_fill.cc.
//
// Error bound. S, C are the anchor's doubles (A~-scaled), c, s the table's, and y_d =
// fl(S c + fl(C s)) (or fl(C c - fl(S s))) the double sink's value. The floats are RN of each:
// S_f = S (1 + a), |a| <= 2^-24, likewise C_f, c_f, s_f, and y_f = fl(P c_f + fl(Q s_f)) with
// (P, Q) = (S_f, C_f) or (C_f, -S_f). With |S c| + |C s| <= A~ (1 + 2^-50) (Cauchy-Schwarz; both
// pairs lie within a few u of circles of radius A~ and 1), |C_f s_f| <= A~ (1 + 2^-22) and
// |y_f| <= A~ (1 + 2^-21):
//   |y_f - y_d| <= 2^-23 (1 + 2^-25) (|S c| + |C s|)     inputs rounded to float
//                + 2^-24 |C_f s_f| + 2^-24 |y_f|        the float product and FMA
//                + 2^-53 (|C s| + |y_d|)                the double rotation
//               <= A~ 2^-22 (1 + 2^-19) =: E.
// The check moves y_f by E_c in float: fl(y_f - E_c) <= y_f - E_c + 2^-24 (|y_f| + E_c), which is
// at most y_f - E when E_c (1 - 2^-24) >= E + 2^-24 A~ (1 + 2^-21), i.e. E_c >= 1.2501 A~ 2^-22;
// likewise above. So lo <= y_d <= hi, and rounding to nearest is monotonic: equal roundings of lo
// and hi are the rounding of y_d. Values within E_c of zero give lo < 0 < hi, roundings of
// different signs, so they always take the double path, and so does every value the fix-up
// could touch (bfloat16's threshold A~ 2^-39 is far below E_c), and every bfloat16 subnormal.

#if defined(PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
#undef PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
#else
#define PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
#endif

#include <cmath>
#include <limits>

#include "core/precise/half_sinks-inl.h"
#include "core/precise/rotate-inl.h"
#include "core/precise/row_shape.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::precise::HWY_NAMESPACE {

#if HWY_TARGET != HWY_SCALAR
// E_c of the comment above, rounded up to float, for the plan's A~.
inline float FloatFirstError(double attention) {
  const double e = attention * 0x1.4050p-22;  // 1.2512 A~ 2^-22 >= 1.2501 A~ 2^-22 (1 + 2^-24)
  auto f = static_cast<float>(e);
  if (f < e) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

// The attention factors the bound holds for: anchors and E_c normal floats, nothing overflows.
inline bool FloatFirstApplies(double attention) {
  return attention >= 0x1p-60 && attention <= 0x1p60;
}

// Zipped rows: lane 2k + {0, 1} of a float vector is P c_k + Q s_k with (P, Q) = (S_k, C_k) for a
// sine and (C_k, -S_k) for a cosine, so the rotation yields the zipped row with no permutation,
// from the table with each value twice.
template <Dtype kOut, bool kNative, Pairing kPairing>
class ZippedHalfFloatFirst {
 public:
  static constexpr bool kFloatFirst = true;
  using Exact = ZippedHalf<kOut, kNative, kPairing>;
  using DU = typename Exact::DU;
  ZippedHalfFloatFirst(uint16_t* table, size_t width, double threshold, double attention)
      : exact_(table, width, threshold), error_(FloatFirstError(attention)) {}
  static constexpr bool CanStream(size_t half) { return Exact::CanStream(half); }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Block b = block;  // a local copy: the stores below may not alias it
    const DF df;
    const size_t n = hn::Lanes(DF64());  // pairs per float vector
    const size_t chunk = b.i1 - b.i0;
    const auto idx = ZipIndices();
    const auto e = hn::Set(df, error_);
    auto min = hn::Set(df, std::numeric_limits<float>::infinity());
    uint16_t* HWY_RESTRICT row = exact_.table() + b.row0 * exact_.width() + 2 * b.i0;
    // Pairs [i, i + N) of row r at p.
    const auto put = [&](uint16_t* HWY_RESTRICT p, hn::Vec<DF> pv, hn::Vec<DF> qv, size_t r,
                         size_t i) HWY_ATTR {
      const size_t t = 2 * (r * chunk + i);
      const auto y = hn::MulAdd(pv, hn::LoadU(df, b.table_cos_f2 + t),
                                hn::Mul(qv, hn::LoadU(df, b.table_sin_f2 + t)));
      const auto lo = HalfBits<kOut, kNative>(hn::Sub(y, e));
      const auto hi = HalfBits<kOut, kNative>(hn::Add(y, e));
      if (HWY_LIKELY(hn::AllTrue(DU(), hn::Eq(lo, hi)))) {
        StorePatterns<kStream>(lo, p);
      } else {
        const DF64 d;
        V ys, yc;
        Rotate(d, b.anchor_sin + b.i0 + i, b.anchor_cos + b.i0 + i, b.table_sin + r * chunk + i,
               b.table_cos + r * chunk + i, ys, yc);
        Exact::template Store<kStream>(p, ys, yc, idx, min);
      }
    };
    if (chunk == kChunkVectors * n) {  // anchors in registers, the loop over lanes unrolled
      hn::Vec<DF> pv[kChunkVectors], qv[kChunkVectors];
      for (size_t k = 0; k < kChunkVectors; ++k) Anchors(b, b.i0 + k * n, idx, pv[k], qv[k]);
      for (size_t r = 0; r < b.rows; ++r, row += exact_.width()) {
        for (size_t k = 0; k < kChunkVectors; ++k) put(row + 2 * k * n, pv[k], qv[k], r, k * n);
      }
    } else {
      for (size_t i = 0; i < chunk; i += n) {
        hn::Vec<DF> pv, qv;
        Anchors(b, b.i0 + i, idx, pv, qv);
        uint16_t* p = row + 2 * i;
        for (size_t r = 0; r < b.rows; ++r, p += exact_.width()) put(p, pv, qv, r, i);
      }
    }
    return exact_.Flagged(min);
  }
  void Put(uint64_t row, size_t i, V ys, V yc) const { exact_.Put(row, i, ys, yc); }
  void Touch(uint64_t r0, uint64_t r1) const { exact_.Touch(r0, r1); }

 private:
  // P and Q for pairs [i, i + N).
  static HWY_INLINE void Anchors(const Block& b, size_t i, ZipIdx idx, hn::Vec<DF>& pv,
                                 hn::Vec<DF>& qv) {
    const DH dh;
    const auto s = hn::LoadU(dh, b.anchor_sin_f + i);
    const auto c = hn::LoadU(dh, b.anchor_cos_f + i);
    const auto minus_s = hn::Neg(s);
    switch (kPairing) {
      case Pairing::kSinCos:
        pv = ZipHalves(s, c, idx), qv = ZipHalves(c, minus_s, idx);
        break;
      case Pairing::kCosSin:
        pv = ZipHalves(c, s, idx), qv = ZipHalves(minus_s, c, idx);
        break;
      case Pairing::kCosCos:
        pv = ZipHalves(c, c, idx), qv = ZipHalves(minus_s, minus_s, idx);
        break;
      case Pairing::kSinSin:
        pv = ZipHalves(s, s, idx), qv = ZipHalves(c, c, idx);
        break;
    }
  }
  Exact exact_;
  float error_;
};

// Rows in runs: 2N pairs per float vector; a run's 2N values rounded and checked together, and
// redone by the double sink (two vectors of pairs) where the check fails.
template <Dtype kOut, bool kNative, bool kSin, bool kCos>
class RunsHalfFloatFirst {
 public:
  static constexpr bool kFloatFirst = true;
  using Exact = RunsHalf<kOut, kNative, kSin, kCos>;
  using DU = typename Exact::DU;
  RunsHalfFloatFirst(uint16_t* table, size_t width, double threshold, const RowShape& shape,
                     double attention)
      : exact_(table, width, threshold, shape), error_(FloatFirstError(attention)) {}
  static constexpr bool CanStream(size_t half) { return Exact::CanStream(half); }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Block b = block;  // a local copy: the stores below may not alias it
    const DF df;
    const DF64 d;
    const size_t n = hn::Lanes(d);
    const size_t chunk = b.i1 - b.i0;
    const auto e = hn::Set(df, error_);
    auto min = hn::Set(df, std::numeric_limits<float>::infinity());
    uint16_t* HWY_RESTRICT row = exact_.table() + b.row0 * exact_.width() + b.i0;
    // One value's 2N pairs [i, i + 2N) of row r at p + each run, or the double sink's.
    const auto side = [&](uint16_t* HWY_RESTRICT p, hn::Vec<DF> y, const int(&runs)[2], bool sin,
                          size_t r, size_t i) HWY_ATTR {
      const auto lo = HalfBits<kOut, kNative>(hn::Sub(y, e));
      const auto hi = HalfBits<kOut, kNative>(hn::Add(y, e));
      if (HWY_LIKELY(hn::AllTrue(DU(), hn::Eq(lo, hi)))) {
        for (int off : runs)
          if (off >= 0) StorePatterns<kStream>(lo, p + off);
      } else {
        V ys0, yc0, ys1, yc1;
        const size_t t = r * chunk + i;
        Rotate(d, b.anchor_sin + b.i0 + i, b.anchor_cos + b.i0 + i, b.table_sin + t,
               b.table_cos + t, ys0, yc0);
        Rotate(d, b.anchor_sin + b.i0 + i + n, b.anchor_cos + b.i0 + i + n, b.table_sin + t + n,
               b.table_cos + t + n, ys1, yc1);
        if (sin) {
          Exact::template Store2<kStream>(ys0, ys1, p, runs, min);
        } else {
          Exact::template Store2<kStream>(yc0, yc1, p, runs, min);
        }
      }
    };
    const auto put = [&](uint16_t* HWY_RESTRICT p, hn::Vec<DF> s_a, hn::Vec<DF> c_a, size_t r,
                         size_t i) HWY_ATTR {
      const size_t t = r * chunk + i;
      const auto s_j = hn::LoadU(df, b.table_sin_f + t);
      const auto c_j = hn::LoadU(df, b.table_cos_f + t);
      if constexpr (kSin) {
        side(p, hn::MulAdd(s_a, c_j, hn::Mul(c_a, s_j)), exact_.sin_runs(), true, r, i);
      }
      if constexpr (kCos) {
        side(p, hn::MulAdd(c_a, c_j, hn::Mul(hn::Neg(s_a), s_j)), exact_.cos_runs(), false, r, i);
      }
    };
    constexpr size_t kFloatVectors = kChunkVectors / 2;
    size_t i = 0;
    if (chunk == kChunkVectors * n && kChunkVectors % 2 == 0) {  // anchors in registers
      hn::Vec<DF> s_a[kFloatVectors], c_a[kFloatVectors];
      for (size_t k = 0; k < kFloatVectors; ++k) {
        s_a[k] = hn::LoadU(df, b.anchor_sin_f + b.i0 + 2 * k * n);
        c_a[k] = hn::LoadU(df, b.anchor_cos_f + b.i0 + 2 * k * n);
      }
      uint16_t* p = row;
      for (size_t r = 0; r < b.rows; ++r, p += exact_.width()) {
        for (size_t k = 0; k < kFloatVectors; ++k) put(p + 2 * k * n, s_a[k], c_a[k], r, 2 * k * n);
      }
      i = chunk;
    }
    for (; i + 2 * n <= chunk; i += 2 * n) {
      const auto s_a = hn::LoadU(df, b.anchor_sin_f + b.i0 + i);
      const auto c_a = hn::LoadU(df, b.anchor_cos_f + b.i0 + i);
      uint16_t* p = row + i;
      for (size_t r = 0; r < b.rows; ++r, p += exact_.width()) put(p, s_a, c_a, r, i);
    }
    if (i < chunk) {  // an odd vector of pairs at the end: the double sink's plain stores
      uint16_t* p = row + i;
      for (size_t r = 0; r < b.rows; ++r, p += exact_.width()) {
        V ys, yc;
        Rotate(d, b.anchor_sin + b.i0 + i, b.anchor_cos + b.i0 + i, b.table_sin + r * chunk + i,
               b.table_cos + r * chunk + i, ys, yc);
        if constexpr (kSin) Exact::Store1(ys, p, exact_.sin_runs(), min);
        if constexpr (kCos) Exact::Store1(yc, p, exact_.cos_runs(), min);
      }
    }
    return exact_.Flagged(min);
  }
  void Put(uint64_t row, size_t i, V ys, V yc) const { exact_.Put(row, i, ys, yc); }
  void Touch(uint64_t r0, uint64_t r1) const { exact_.Touch(r0, r1); }

 private:
  Exact exact_;
  float error_;
};
#endif  // HWY_TARGET != HWY_SCALAR

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
