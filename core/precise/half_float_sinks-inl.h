// Per-target (Highway) float-rotation sinks of the precise strategy for float16 and bfloat16 rows:
// the rotation in float (twice the lanes of double, no demotion), rounded once to the 16-bit
// format. That is faithful wherever the value is not small (below); a vector holding a small value
// goes through the double sinks of half_sinks-inl.h instead, fix-up tracking included. The double
// rotation is faithful too, and correctly rounded but for values within 2^-49 of a midpoint; the
// float one is not correctly rounded within its error bound (2^-22 A) of a midpoint, where it may
// give the other faithful neighbour: 417 of 4194304 float16 values and 57 bfloat16 ones of a
// 8192 x 512 table from position 100000 (`peverify verify --budget strict`). Checking for that
// costs as much as the rotation (crosscheck/precise_sinks_test.cc bounds every such
// value). Included by precise_fill.cc, which chooses them (float_rotation_threshold,
// precise_fill.h).
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
// normal float (A >= 2^-60: VCVTNEPS2BF16 reads subnormals as zero), and float16 finite (A <=
// 2^15).

#if defined(PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
#undef PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
#else
#define PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
#endif

#include <cmath>
#include <limits>

#include "hwy/highway.h"
#include "peverify/core/precise/half_sinks-inl.h"
#include "peverify/core/precise/rotate-inl.h"
#include "peverify/core/precise/row_shape.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::precise::HWY_NAMESPACE {

#if HWY_TARGET != HWY_SCALAR
using core::HWY_NAMESPACE::BF16RoundedF32Bits;

// The float rotation's threshold T (the comment above) rounded up to float.
inline float FloatThreshold(double threshold) {
  auto f = static_cast<float>(threshold);
  if (f < threshold) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

// Whether a vector holds a value below the threshold t, which the float rotation does not round.
HWY_INLINE bool AnySmall(hn::Vec<DF> y, hn::Vec<DF> t) {
  return !hn::AllFalse(DF(), hn::Lt(hn::Abs(y), t));
}

// 2N patterns at p + each run of the row (a run offset < 0: none).
template <bool kStream>
HWY_INLINE void StoreRuns(hn::Vec<DU16> bits, uint16_t* HWY_RESTRICT p, const int (&runs)[2]) {
  for (int off : runs)
    if (off >= 0) StorePatterns<kStream>(bits, p + off);
}

// 2 x 2N floats -> their 4N patterns at p. bfloat16 without VCVTNEPS2BF16 rounds both vectors,
// then packs them in one ConcatOdd (a pack and a lane permutation for 4N values where each
// vector would take its own): a full vector, so a streamed p must be aligned to 8N bytes.
template <Dtype kOut, bool kNative, bool kStream>
HWY_INLINE void StorePatternPair(hn::Vec<DF> y0, hn::Vec<DF> y1, uint16_t* HWY_RESTRICT p) {
  if constexpr (kOut == Dtype::kBFloat16 && !kNative) {
    const hn::Repartition<uint16_t, DF> d16;
    const auto bits = hn::ConcatOdd(d16, hn::BitCast(d16, BF16RoundedF32Bits(DF(), y1)),
                                    hn::BitCast(d16, BF16RoundedF32Bits(DF(), y0)));
    if constexpr (kStream) {
      hn::Stream(bits, d16, p);
    } else {
      hn::StoreU(bits, d16, p);
    }
  } else {
    StorePatterns<kStream>(HalfBits<kOut, kNative>(y0), p);
    StorePatterns<kStream>(HalfBits<kOut, kNative>(y1), p + hn::Lanes(DF()));
  }
}

// Zipped rows: lane 2k + {0, 1} of a float vector is P c_k + Q s_k with (P, Q) = (S_k, C_k) for a
// sine and (C_k, -S_k) for a cosine, so the rotation yields the zipped row with no permutation,
// from the table with each value twice.
template <Dtype kOut, bool kNative, Pairing kPairing>
class ZippedHalfFloatFirst {
  using F = hn::Vec<DF>;
  static_assert(kChunkVectors % 2 == 0, "a full chunk's rows are stored two vectors at a time");

 public:
  static constexpr bool kFloatFirst = true;
  using Exact = ZippedHalf<kOut, kNative, kPairing>;
  // Whether StorePatternPair stores a full vector, 8N bytes: streamed, that needs rows of a
  // multiple of 2N pairs and the table aligned to 8N bytes.
  static constexpr bool kWholePairs = kOut == Dtype::kBFloat16 && !kNative;
  static constexpr size_t kStreamAlignment =
      kWholePairs ? 8 * hn::MaxLanes(DF64()) : Exact::kStreamAlignment;
  // fixup: the double sinks' threshold; small: the float rotation's (float_rotation_threshold).
  ZippedHalfFloatFirst(uint16_t* table, size_t width, double fixup, double small)
      : exact_(table, width, fixup), small_(FloatThreshold(small)) {}
  static constexpr bool CanStream(size_t half) {
    return Exact::CanStream(half) && (!kWholePairs || half % (2 * hn::MaxLanes(DF64())) == 0);
  }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Block b = block;  // a local copy: the stores below may not alias it
    const DF df;
    const size_t n = hn::Lanes(DF64());  // pairs per float vector
    const size_t chunk = b.i1 - b.i0;
    const size_t width = exact_.width();  // a local: the stores may alias the member
    const auto small = hn::Set(df, small_);
    auto min = hn::Set(df, std::numeric_limits<float>::infinity());
    uint16_t* HWY_RESTRICT row = exact_.table() + b.row0 * width + 2 * b.i0;
    if (chunk == kChunkVectors * n) {
      // Anchors in registers, the loop over lanes unrolled, and one test per row: its smallest
      // magnitude (a branch per vector cost ~8% of the time). A row that fails it takes SmallRow:
      // about 1 float16 value in 800 is small, so 1 row of a chunk in 12 on AVX2 (64 values).
      F pv[kChunkVectors], qv[kChunkVectors];
      for (size_t k = 0; k < kChunkVectors; ++k) Anchors(b, b.i0 + k * n, pv[k], qv[k]);
      uint16_t* p = row;
      for (size_t r = 0; r < b.rows; ++r, p += width) {
        F y[kChunkVectors];
        y[0] = Rotated(b, pv[0], qv[0], r, 0);
        auto least = hn::Abs(y[0]);
        for (size_t k = 1; k < kChunkVectors; ++k) {
          y[k] = Rotated(b, pv[k], qv[k], r, k * n);
          least = hn::Min(least, hn::Abs(y[k]));
        }
        if (HWY_LIKELY(hn::AllFalse(df, hn::Lt(least, small)))) {
          for (size_t k = 0; k < kChunkVectors; k += 2)
            StorePatternPair<kOut, kNative, kStream>(y[k], y[k + 1], p + 2 * k * n);
        } else {
          SmallRow<kStream>(b, pv, qv, r, p, min);
        }
      }
    } else {
      for (size_t i = 0; i < chunk; i += n) {
        F pv, qv;
        Anchors(b, b.i0 + i, pv, qv);
        uint16_t* p = row + 2 * i;
        for (size_t r = 0; r < b.rows; ++r, p += width)
          Put<kStream>(b, Rotated(b, pv, qv, r, i), r, i, p, min);
      }
    }
    return exact_.Flagged(min);
  }
  void Put(uint64_t row, size_t i, V ys, V yc) const { exact_.Put(row, i, ys, yc); }
  void Touch(uint64_t r0, uint64_t r1) const { exact_.Touch(r0, r1); }

 private:
  // P and Q for pairs [i, i + N).
  static HWY_INLINE void Anchors(const Block& b, size_t i, F& pv, F& qv) {
    const DH dh;
    const auto idx = ZipIndices();
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
  // Pairs [i, i + N) of row r in float (i within the chunk).
  static HWY_INLINE F Rotated(const Block& b, F pv, F qv, size_t r, size_t i) {
    const DF df;
    const size_t t = 2 * (r * (b.i1 - b.i0) + i);
    return hn::MulAdd(pv, hn::LoadU(df, b.table_cos_f2 + t),
                      hn::Mul(qv, hn::LoadU(df, b.table_sin_f2 + t)));
  }
  // Those pairs at p: y rounded, or the double rotation's where y holds a small value.
  template <bool kStream>
  HWY_INLINE void Put(const Block& b, F y, size_t r, size_t i, uint16_t* HWY_RESTRICT p,
                      F& min) const {
    if (HWY_LIKELY(!AnySmall(y, hn::Set(DF(), small_)))) {
      StorePatterns<kStream>(HalfBits<kOut, kNative>(y), p);
    } else {
      V ys, yc;
      const size_t t = r * (b.i1 - b.i0) + i;
      Rotate(DF64(), b.anchor_sin + b.i0 + i, b.anchor_cos + b.i0 + i, b.table_sin + t,
             b.table_cos + t, ys, yc);
      Exact::template Store<kStream>(p, ys, yc, ZipIndices(), min);
    }
  }
  // Row r of a full chunk at p, a row that holds a small value: each vector's patterns from its
  // float rotation (done again from the anchors pv, qv), or from the double rotation where that
  // holds a small value, as Put. Usually one vector does: it is found from the comparison masks
  // and the others keep their float patterns without a branch per vector, which would be
  // mispredicted here; a row with several takes Put's branch per vector.
  template <bool kStream>
  HWY_NOINLINE void SmallRow(const Block& b, const F (&pv)[kChunkVectors],
                             const F (&qv)[kChunkVectors], size_t r, uint16_t* HWY_RESTRICT p,
                             F& min) const {
    const DF64 d;
    const DU16 du16;
    const size_t n = hn::Lanes(d);
    const auto small = hn::Set(DF(), small_);
    F y[kChunkVectors];
    unsigned flagged = 0;  // bit k: vector k holds a small value
    for (size_t k = 0; k < kChunkVectors; ++k) {
      y[k] = Rotated(b, pv[k], qv[k], r, k * n);
      flagged |= static_cast<unsigned>(AnySmall(y[k], small)) << k;
    }
    if (HWY_UNLIKELY(flagged == 0 || (flagged & (flagged - 1)) != 0)) {
      for (size_t k = 0; k < kChunkVectors; ++k)
        Put<kStream>(b, y[k], r, k * n, p + 2 * k * n, min);
      return;
    }
    const auto odd = static_cast<size_t>(__builtin_ctz(flagged));
    V ys, yc;
    const size_t j = odd * n, t = r * (b.i1 - b.i0) + j;
    Rotate(d, b.anchor_sin + b.i0 + j, b.anchor_cos + b.i0 + j, b.table_sin + t, b.table_cos + t,
           ys, yc);
    const auto exact = Exact::Bits(ys, yc, ZipIndices(), min);
    for (size_t k = 0; k < kChunkVectors; ++k) {
      const auto take = hn::Set(du16, static_cast<uint16_t>(k == odd ? 0xffff : 0));
      const auto bits = hn::IfThenElse(hn::MaskFromVec(take), exact, HalfBits<kOut, kNative>(y[k]));
      StorePatterns<kStream>(bits, p + 2 * k * n);
    }
  }
  Exact exact_;
  float small_;
};

// Rows in runs: 2N pairs per float vector; a run's 2N values rounded and checked together, and
// redone by the double sink (two vectors of pairs) where the check fails.
template <Dtype kOut, bool kNative, bool kSin, bool kCos>
class RunsHalfFloatFirst {
 public:
  static constexpr bool kFloatFirst = true;
  using Exact = RunsHalf<kOut, kNative, kSin, kCos>;
  static constexpr size_t kStreamAlignment = Exact::kStreamAlignment;
  RunsHalfFloatFirst(uint16_t* table, size_t width, double threshold, const RowShape& shape,
                     double small)
      : exact_(table, width, threshold, shape), small_(FloatThreshold(small)) {}
  static constexpr bool CanStream(size_t half) { return Exact::CanStream(half); }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Block b = block;  // a local copy: the stores below may not alias it
    const DF df;
    const DF64 d;
    const size_t n = hn::Lanes(d);
    const size_t chunk = b.i1 - b.i0;
    const auto small = hn::Set(df, small_);
    auto min = hn::Set(df, std::numeric_limits<float>::infinity());
    uint16_t* HWY_RESTRICT row = exact_.table() + b.row0 * exact_.width() + b.i0;
    // One value's 2N pairs [i, i + 2N) of row r at p + each run, or the double sink's.
    const auto side = [&](uint16_t* HWY_RESTRICT p, hn::Vec<DF> y, const int(&runs)[2], bool sin,
                          size_t r, size_t i) HWY_ATTR {
      if (HWY_LIKELY(!AnySmall(y, small))) {
        StoreRuns<kStream>(HalfBits<kOut, kNative>(y), p, runs);
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
    // The sines and cosines of pairs [i, i + 2N) of row r in float (those the layout stores).
    const auto rotate = [&](hn::Vec<DF> s_a, hn::Vec<DF> c_a, size_t r, size_t i, hn::Vec<DF>& ys,
                            hn::Vec<DF>& yc) HWY_ATTR {
      const size_t t = r * chunk + i;
      const auto s_j = hn::LoadU(df, b.table_sin_f + t);
      const auto c_j = hn::LoadU(df, b.table_cos_f + t);
      if constexpr (kSin) ys = hn::MulAdd(s_a, c_j, hn::Mul(c_a, s_j));
      if constexpr (kCos) yc = hn::MulAdd(c_a, c_j, hn::Mul(hn::Neg(s_a), s_j));
    };
    const auto put = [&](uint16_t* HWY_RESTRICT p, hn::Vec<DF> ys, hn::Vec<DF> yc, size_t r,
                         size_t i) HWY_ATTR {
      if constexpr (kSin) side(p, ys, exact_.sin_runs(), true, r, i);
      if constexpr (kCos) side(p, yc, exact_.cos_runs(), false, r, i);
    };
    constexpr size_t kFloatVectors = kChunkVectors / 2;
    size_t i = 0;
    if (chunk == kChunkVectors * n && kChunkVectors % 2 == 0) {
      // Anchors in registers and one test per row, as in ZippedHalfFloatFirst.
      hn::Vec<DF> s_a[kFloatVectors], c_a[kFloatVectors];
      for (size_t k = 0; k < kFloatVectors; ++k) {
        s_a[k] = hn::LoadU(df, b.anchor_sin_f + b.i0 + 2 * k * n);
        c_a[k] = hn::LoadU(df, b.anchor_cos_f + b.i0 + 2 * k * n);
      }
      // The run offsets in locals: read through `this`, they would be loaded again after every
      // store, which may alias them.
      const int sin_runs[2] = {exact_.sin_runs()[0], exact_.sin_runs()[1]};
      const int cos_runs[2] = {exact_.cos_runs()[0], exact_.cos_runs()[1]};
      const size_t width = exact_.width();
      uint16_t* p = row;
      for (size_t r = 0; r < b.rows; ++r, p += width) {
        hn::Vec<DF> ys[kFloatVectors], yc[kFloatVectors];
        auto least = hn::Set(df, std::numeric_limits<float>::infinity());
        for (size_t k = 0; k < kFloatVectors; ++k) {
          rotate(s_a[k], c_a[k], r, 2 * k * n, ys[k], yc[k]);
          if constexpr (kSin) least = MinMagnitude(least, ys[k]);
          if constexpr (kCos) least = MinMagnitude(least, yc[k]);
        }
        if (HWY_LIKELY(hn::AllFalse(df, hn::Lt(least, small)))) {
          for (size_t k = 0; k < kFloatVectors; ++k) {
            if constexpr (kSin)
              StoreRuns<kStream>(HalfBits<kOut, kNative>(ys[k]), p + 2 * k * n, sin_runs);
            if constexpr (kCos)
              StoreRuns<kStream>(HalfBits<kOut, kNative>(yc[k]), p + 2 * k * n, cos_runs);
          }
        } else {
          for (size_t k = 0; k < kFloatVectors; ++k) put(p + 2 * k * n, ys[k], yc[k], r, 2 * k * n);
        }
      }
      i = chunk;
    }
    for (; i + 2 * n <= chunk; i += 2 * n) {
      const auto s_a = hn::LoadU(df, b.anchor_sin_f + b.i0 + i);
      const auto c_a = hn::LoadU(df, b.anchor_cos_f + b.i0 + i);
      uint16_t* p = row + i;
      for (size_t r = 0; r < b.rows; ++r, p += exact_.width()) {
        hn::Vec<DF> ys, yc;
        rotate(s_a, c_a, r, i, ys, yc);
        put(p, ys, yc, r, i);
      }
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
  float small_;
};
#endif  // HWY_TARGET != HWY_SCALAR

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
