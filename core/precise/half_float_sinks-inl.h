// Per-target (Highway) float-rotation sinks of the precise strategy for float16 and bfloat16 rows:
// the rotation in float (2N pairs' sines or cosines a vector, twice the lanes of double, no
// demotion), rounded once to the 16-bit format. That is faithful wherever the rounded value is not
// small (float_rotation-inl.h); each small one is taken from the double rotation instead
// (half_sinks-inl.h), fix-up tracking included. The double rotation is faithful too, and
// correctly rounded but for values within 2^-49 of a midpoint; the float one is not
// correctly rounded within its error bound (about 2^-22 A) of a midpoint, where it may give the
// other faithful neighbour: 475 of 4194304 float16 values and 76 bfloat16 ones of a 8192 x 512
// table from position 100000 (`peverify verify --budget strict`). Checking for that costs as much
// as the rotation (crosscheck/precise_sinks_test.cc bounds every such value). Included by
// precise_fill.cc, which chooses them (float_rotation_bound, precise_fill.h). The error bound
// and the faithful argument are in float_rotation-inl.h.

#if defined(PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
#undef PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
#else
#define PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
#endif

#include <cmath>
#include <limits>
#include <type_traits>

#include "hwy/highway.h"
#include "peverify/core/precise/float_rotation-inl.h"
#include "peverify/core/precise/half_sinks-inl.h"
#include "peverify/core/precise/rotate-inl.h"
#include "peverify/core/precise/row_shape.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::precise::HWY_NAMESPACE {

#if HWY_TARGET != HWY_SCALAR

// 2N patterns at p + each run of the row (a run offset < 0: none).
template <bool kStream>
HWY_INLINE void StoreRuns(hn::Vec<DU16> bits, uint16_t* HWY_RESTRICT p, const int (&runs)[2]) {
  for (int off : runs)
    if (off >= 0) StorePatterns<kStream>(bits, p + off);
}

// Zipped rows: each float vector holds 2N pairs' sines (or cosines), as in runs; the two kinds'
// patterns are zipped by integer ops and stored as one whole vector. The small-value test reads
// the zipped patterns, once per row of a full chunk; where it fires, each flagged vector takes the
// double rotation's patterns for its small values (Repaired).
template <Dtype kOut, bool kNative, Pairing kPairing>
class ZippedHalfFloatFirst {
  using F = hn::Vec<DF>;
  using W = hn::Vec<DW16>;
  static constexpr bool kSin = kPairing != Pairing::kCosCos;
  static constexpr bool kCos = kPairing != Pairing::kSinSin;
  // Float vectors in a full chunk of the float table (kTargetFloatChunkPairs, rotate-inl.h).
  static constexpr size_t kVectors =
      HWY_MAX(size_t{1}, kTargetFloatChunkPairs / hn::MaxLanes(DF()));

 public:
  static constexpr bool kFloatFirst = true;
  using Exact = ZippedHalf<kOut, kNative, kPairing>;
  // Whole-vector stores of 8N bytes.
  static constexpr size_t kStreamAlignment = 8 * hn::MaxLanes(DF64());
  // fixup: the double sinks' threshold; limit: the float rotation's (float_rotation_limit).
  ZippedHalfFloatFirst(uint16_t* table, size_t width, double fixup, int16_t limit)
      : exact_(table, width, fixup), limit_(limit) {}
  // Streamed: rows of whole vectors (a multiple of 2N pairs), hence every chunk too.
  static constexpr bool CanStream(size_t half) {
    return Exact::CanStream(half) && half % (2 * hn::MaxLanes(DF64())) == 0;
  }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Block b = block;              // a local copy: the stores below may not alias it
    const size_t n2 = hn::Lanes(DF());  // pairs per float vector
    const size_t chunk = b.i1 - b.i0;
    const size_t width = exact_.width();  // locals: the stores may alias the members
    const int16_t limit = limit_;
    const auto limit_v = hn::Set(hn::RebindToSigned<DW16>(), limit);
    auto min = hn::Set(DF(), std::numeric_limits<float>::infinity());  // the double path's
    uint16_t* HWY_RESTRICT row = exact_.table() + b.row0 * width + 2 * b.i0;
    size_t i = 0;
    if (chunk == kVectors * n2) {
      // Anchors in registers (as many as fit), the loop over vectors unrolled, and one test per
      // row, without a branch: every row is stored from the float rotation, and those holding a
      // small value (about 1 in 12 for float16 at 128 pairs a chunk, at random) are listed and
      // rewritten after the loop. Branching on the test instead cost float16 40% (Zen 5).
      F s_a[kVectors], c_a[kVectors];
      for (size_t k = 0; k < kVectors; ++k) Anchors(b, k * n2, s_a[k], c_a[k]);
      static_assert(kAnchorInterval <= 256, "rows within a block fit uint8_t");
      uint8_t later[kAnchorInterval];  // rows within the block (at most kAnchorInterval)
      size_t count = 0;
      uint16_t* p = row;
      for (size_t r = 0; r < b.rows; ++r, p += width) {
        auto least = hn::Set(hn::RebindToSigned<DW16>(), 0x7fff);
        for (size_t k = 0; k < kVectors; ++k) {
          const W bits = Zipped(b, s_a[k], c_a[k], r, k * n2);
          least = hn::Min(least, Magnitudes(DW16(), bits));
          Store<kStream>(bits, p + 2 * k * n2);
        }
        later[count] = static_cast<uint8_t>(r);
        count += !hn::AllFalse(hn::RebindToSigned<DW16>(), hn::Lt(least, limit_v));
      }
      if (kStream && count != 0) hwy::FlushStream();  // order the rewrites after streamed rows
      for (size_t j = 0; j < count; ++j) {
        const size_t r = later[j];
        for (size_t k = 0; k < kVectors; ++k) {
          const W bits = Zipped(b, s_a[k], c_a[k], r, k * n2);
          if (SmallPatterns(DW16(), bits, limit))
            Store</*kStream=*/false>(Repaired(b, bits, r, k * n2, limit, min),
                                     row + r * width + 2 * k * n2);
        }
      }
      i = chunk;
    }
    for (; i + n2 <= chunk; i += n2) {
      F s_a, c_a;
      Anchors(b, i, s_a, c_a);
      uint16_t* p = row + 2 * i;
      for (size_t r = 0; r < b.rows; ++r, p += width) {
        W bits = Zipped(b, s_a, c_a, r, i);
        if (HWY_UNLIKELY(SmallPatterns(DW16(), bits, limit)))
          bits = Repaired(b, bits, r, i, limit, min);
        Store<kStream>(bits, p);
      }
    }
    if (i < chunk) {  // N pairs at the end: the double sink's
      uint16_t* p = row + 2 * i;
      for (size_t r = 0; r < b.rows; ++r, p += width) {
        V ys, yc;
        const size_t t = r * chunk + i;
        Rotate(DF64(), b.anchor_sin + b.i0 + i, b.anchor_cos + b.i0 + i, b.table_sin + t,
               b.table_cos + t, ys, yc);
        Exact::template Store<kStream>(p, ys, yc, ZipIndices(), min);
      }
    }
    return exact_.Flagged(min);
  }
  void Put(uint64_t row, size_t i, V ys, V yc) const { exact_.Put(row, i, ys, yc); }
  void Touch(uint64_t r0, uint64_t r1) const { exact_.Touch(r0, r1); }

 private:
  // The float anchors of pairs [i, i + 2N) of the chunk.
  static HWY_INLINE void Anchors(const Block& b, size_t i, F& s_a, F& c_a) {
    s_a = hn::LoadU(DF(), b.anchor_sin_f + b.i0 + i);
    c_a = hn::LoadU(DF(), b.anchor_cos_f + b.i0 + i);
  }
  // Pairs [i, i + 2N) of row r rotated in float (those the pairing stores).
  static HWY_INLINE void Rotated(const Block& b, F s_a, F c_a, size_t r, size_t i, F& ys, F& yc) {
    const size_t t = r * (b.i1 - b.i0) + i;
    FloatRotate<kSin, kCos>(s_a, c_a, hn::LoadU(DF(), b.table_sin_f + t),
                            hn::LoadU(DF(), b.table_cos_f + t), ys, yc);
  }
  // Their zipped patterns from the float rotation.
  static HWY_INLINE W Zipped(const Block& b, F s_a, F c_a, size_t r, size_t i) {
    F ys, yc, first, second;
    Rotated(b, s_a, c_a, r, i, ys, yc);
    zip_pair(kPairing, ys, yc, first, second);
    return FloatZipped<kOut>(first, second);
  }
  // The zipped patterns `bits` of pairs [i, i + 2N) of row r, each value the float rotation does
  // not round (PatternBelow) replaced by the double rotation's. Value by value, so that which
  // rotation a value comes from does not depend on the vector length: every target with FMA
  // writes the same table. A kind with no such value is not rounded from double at all.
  static HWY_NOINLINE W Repaired(const Block& b, W bits, size_t r, size_t i, int16_t limit,
                                 F& min) {
    const DU32 du;
    const DW16 dw;
    const auto small = hn::BitCast(du, hn::VecFromMask(dw, PatternBelow(dw, bits, limit)));
    const auto any = [&](uint32_t half) HWY_ATTR {
      return !hn::AllFalse(du, hn::Ne(hn::And(small, hn::Set(du, half)), hn::Zero(du)));
    };
    const bool first_small = any(0xffffu), second_small = any(0xffff0000u);
    constexpr bool kSinFirst = kPairing == Pairing::kSinCos || kPairing == Pairing::kSinSin;
    constexpr bool kSinSecond = kPairing == Pairing::kCosSin || kPairing == Pairing::kSinSin;
    const bool sin_small = (kSinFirst && first_small) || (kSinSecond && second_small);
    const bool cos_small = (!kSinFirst && first_small) || (!kSinSecond && second_small);
    const DF64 d;
    const size_t n = hn::Lanes(d), t = r * (b.i1 - b.i0) + i;
    const double *as = b.anchor_sin + b.i0 + i, *ac = b.anchor_cos + b.i0 + i;
    V ys0, yc0, ys1, yc1;
    Rotate(d, as, ac, b.table_sin + t, b.table_cos + t, ys0, yc0);
    Rotate(d, as + n, ac + n, b.table_sin + t + n, b.table_cos + t + n, ys1, yc1);
    auto sines = hn::Zero(DU16()), cosines = hn::Zero(DU16());  // lanes kept from `bits`
    if (sin_small) sines = DoublePatterns<kOut, kNative>(ys0, ys1, min);
    if (cos_small) cosines = DoublePatterns<kOut, kNative>(yc0, yc1, min);
    const W exact = ZipPatterns(kSinFirst ? sines : cosines, kSinSecond ? sines : cosines);
    return hn::IfThenElse(hn::MaskFromVec(hn::BitCast(dw, small)), exact, bits);
  }
  template <bool kStream>
  static HWY_INLINE void Store(W bits, uint16_t* HWY_RESTRICT p) {
    if constexpr (kStream) {
      hn::Stream(bits, DW16(), p);
    } else {
      hn::StoreU(bits, DW16(), p);
    }
  }
  Exact exact_;
  int16_t limit_;
};

// Rows in runs: 2N pairs per float vector, a kind's 2N values rounded and tested together, and
// each small one taken from the double rotation (two vectors of pairs) where the test fires.
template <Dtype kOut, bool kNative, bool kSin, bool kCos>
class RunsHalfFloatFirst {
  using P = hn::Vec<DU16>;

 public:
  static constexpr bool kFloatFirst = true;
  using Exact = RunsHalf<kOut, kNative, kSin, kCos>;
  static constexpr size_t kStreamAlignment = Exact::kStreamAlignment;
  RunsHalfFloatFirst(uint16_t* table, size_t width, double threshold, const RowShape& shape,
                     int16_t limit)
      : exact_(table, width, threshold, shape),
        limit_(limit),
        run_by_run_((kSin && kCos) || runs_apart_4k(shape, sizeof(uint16_t))) {}
  static constexpr bool CanStream(size_t half) { return Exact::CanStream(half); }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Pass s(block, exact_, limit_);
    auto min = hn::Set(DF(), std::numeric_limits<float>::infinity());
    size_t i = 0;
    if (s.chunk == kFloatVectors * 2 * s.n) {
      if (run_by_run_) {
        for (int off : s.sin_runs)
          if (kSin && off >= 0) FullChunkOneRun<kStream, true>(s, off, min);
        for (int off : s.cos_runs)
          if (kCos && off >= 0) FullChunkOneRun<kStream, false>(s, off, min);
      } else {
        FullChunkRowByRow<kStream>(s, min);
      }
      i = s.chunk;
    }
    for (; i + 2 * s.n <= s.chunk; i += 2 * s.n) {
      const auto s_a = hn::LoadU(DF(), s.b.anchor_sin_f + s.b.i0 + i);
      const auto c_a = hn::LoadU(DF(), s.b.anchor_cos_f + s.b.i0 + i);
      uint16_t* p = s.row + i;
      for (size_t r = 0; r < s.b.rows; ++r, p += s.width) {
        P ps, pc;
        Patterns(s, s_a, c_a, r, i, ps, pc);
        Put<kStream>(s, p, ps, pc, r, i, min);
      }
    }
    if (i < s.chunk) {  // an odd vector of pairs at the end: the double sink's plain stores
      uint16_t* p = s.row + i;
      for (size_t r = 0; r < s.b.rows; ++r, p += s.width) {
        V ys, yc;
        const size_t t = r * s.chunk + i;
        Rotate(DF64(), s.b.anchor_sin + s.b.i0 + i, s.b.anchor_cos + s.b.i0 + i, s.b.table_sin + t,
               s.b.table_cos + t, ys, yc);
        if constexpr (kSin) Exact::Store1(ys, p, s.sin_runs, min);
        if constexpr (kCos) Exact::Store1(yc, p, s.cos_runs, min);
      }
    }
    return exact_.Flagged(min);
  }
  void Put(uint64_t row, size_t i, V ys, V yc) const { exact_.Put(row, i, ys, yc); }
  void Touch(uint64_t r0, uint64_t r1) const { exact_.Touch(r0, r1); }

 private:
  Exact exact_;
  int16_t limit_;
  // Whether the block's rows are written one run at a time rather than a row at a time: where
  // the row holds sines and cosines (each run then rotates only its own kind; halves 3.9e9 ->
  // 4.2e9 bfloat16 values/s at 131072 x 512), and where two runs start a multiple of 4 KiB
  // apart (runs_apart_4k, row_shape.h; halves at d = 4096: 1.2e9 -> 3.9e9). A cache of one kind in
  // two runs (rope-cos-dup) is faster a row at a time: its runs hold the same values (5.8e9
  // against 4.3e9 at d = 512).
  bool run_by_run_;

  using F = hn::Vec<DF>;
  // Float vectors in a full chunk of the float table (kTargetFloatChunkPairs, rotate-inl.h).
  static constexpr size_t kFloatVectors =
      HWY_MAX(size_t{1}, kTargetFloatChunkPairs / hn::MaxLanes(DF()));

  // What one Rows call reads, in locals: read through `this`, the run offsets and the limit would
  // be loaded again after every store, which may alias them.
  struct Pass {
    Pass(const Block& block, const Exact& exact, int16_t limit_in)
        : b(block),
          n(hn::Lanes(DF64())),
          chunk(block.i1 - block.i0),
          width(exact.width()),
          limit(limit_in),
          sin_runs{exact.sin_runs()[0], exact.sin_runs()[1]},
          cos_runs{exact.cos_runs()[0], exact.cos_runs()[1]},
          row(exact.table() + block.row0 * exact.width() + block.i0) {}
    const Block b;  // a copy: the stores may not alias it
    const size_t n, chunk, width;
    const int16_t limit;
    const int sin_runs[2], cos_runs[2];
    uint16_t* const row;  // the block's first row, at pair i0
  };

  // One kind's 2N patterns of pairs [i, i + 2N) of row r at p + each run, those below the limit
  // replaced by the double rotation's (value by value, as ZippedHalfFloatFirst::Repaired).
  template <bool kStream>
  static HWY_INLINE void Side(const Pass& s, uint16_t* HWY_RESTRICT p, P bits, const int (&runs)[2],
                              bool sin, size_t r, size_t i, F& min) {
    if (HWY_LIKELY(!SmallPatterns(DU16(), bits, s.limit))) {
      StoreRuns<kStream>(bits, p, runs);
      return;
    }
    const DF64 d;
    V ys0, yc0, ys1, yc1;
    const size_t t = r * s.chunk + i;
    const double *as = s.b.anchor_sin + s.b.i0 + i, *ac = s.b.anchor_cos + s.b.i0 + i;
    Rotate(d, as, ac, s.b.table_sin + t, s.b.table_cos + t, ys0, yc0);
    Rotate(d, as + s.n, ac + s.n, s.b.table_sin + t + s.n, s.b.table_cos + t + s.n, ys1, yc1);
    const P exact = DoublePatterns<kOut, kNative>(sin ? ys0 : yc0, sin ? ys1 : yc1, min);
    StoreRuns<kStream>(hn::IfThenElse(PatternBelow(DU16(), bits, s.limit), exact, bits), p, runs);
  }
  // The patterns of pairs [i, i + 2N) of row r from the float rotation (the kinds the layout
  // stores).
  static HWY_INLINE void Patterns(const Pass& s, F s_a, F c_a, size_t r, size_t i, P& ps, P& pc) {
    const DF df;
    const size_t t = r * s.chunk + i;
    F ys, yc;
    FloatRotate<kSin, kCos>(s_a, c_a, hn::LoadU(df, s.b.table_sin_f + t),
                            hn::LoadU(df, s.b.table_cos_f + t), ys, yc);
    if constexpr (kSin) ps = FloatPatterns<kOut>(ys);
    if constexpr (kCos) pc = FloatPatterns<kOut>(yc);
  }
  template <bool kStream>
  static HWY_INLINE void Put(const Pass& s, uint16_t* HWY_RESTRICT p, P ps, P pc, size_t r,
                             size_t i, F& min) {
    if constexpr (kSin) Side<kStream>(s, p, ps, s.sin_runs, true, r, i, min);
    if constexpr (kCos) Side<kStream>(s, p, pc, s.cos_runs, false, r, i, min);
  }
  // A full chunk's float anchors, into registers.
  static HWY_INLINE void LoadAnchors(const Pass& s, F (&s_a)[kFloatVectors],
                                     F (&c_a)[kFloatVectors]) {
    for (size_t k = 0; k < kFloatVectors; ++k) {
      s_a[k] = hn::LoadU(DF(), s.b.anchor_sin_f + s.b.i0 + 2 * k * s.n);
      c_a[k] = hn::LoadU(DF(), s.b.anchor_cos_f + s.b.i0 + 2 * k * s.n);
    }
  }
  // A full chunk a row at a time: anchors in registers and one test per row, as in
  // ZippedHalfFloatFirst.
  template <bool kStream>
  static HWY_INLINE void FullChunkRowByRow(const Pass& s, F& min) {
    using DI16 = hn::RebindToSigned<DU16>;
    F s_a[kFloatVectors], c_a[kFloatVectors];
    LoadAnchors(s, s_a, c_a);
    uint16_t* p = s.row;
    for (size_t r = 0; r < s.b.rows; ++r, p += s.width) {
      P ps[kFloatVectors], pc[kFloatVectors];
      auto least = hn::Set(DI16(), 0x7fff);
      for (size_t k = 0; k < kFloatVectors; ++k) {
        Patterns(s, s_a[k], c_a[k], r, 2 * k * s.n, ps[k], pc[k]);
        if constexpr (kSin) least = hn::Min(least, Magnitudes(DU16(), ps[k]));
        if constexpr (kCos) least = hn::Min(least, Magnitudes(DU16(), pc[k]));
      }
      if (HWY_LIKELY(hn::AllFalse(DI16(), hn::Lt(least, hn::Set(DI16(), s.limit))))) {
        for (size_t k = 0; k < kFloatVectors; ++k) {
          if constexpr (kSin) StoreRuns<kStream>(ps[k], p + 2 * k * s.n, s.sin_runs);
          if constexpr (kCos) StoreRuns<kStream>(pc[k], p + 2 * k * s.n, s.cos_runs);
        }
      } else {
        for (size_t k = 0; k < kFloatVectors; ++k)
          Put<kStream>(s, p + 2 * k * s.n, ps[k], pc[k], r, 2 * k * s.n, min);
      }
    }
  }
  // A full chunk, the block's rows of one run (of sines, kIsSin, or cosines) at `off` only; see
  // run_by_run_.
  template <bool kStream, bool kIsSin>
  static HWY_INLINE void FullChunkOneRun(const Pass& s, int off, F& min) {
    using DI16 = hn::RebindToSigned<DU16>;
    const DF df;
    F s_a[kFloatVectors], c_a[kFloatVectors];
    LoadAnchors(s, s_a, c_a);
    const int one[2] = {off, -1};
    uint16_t* p = s.row;
    for (size_t r = 0; r < s.b.rows; ++r, p += s.width) {
      const size_t t = r * s.chunk;
      P v[kFloatVectors];
      auto least = hn::Set(DI16(), 0x7fff);
      for (size_t k = 0; k < kFloatVectors; ++k) {
        F ys, yc;
        FloatRotate<kIsSin, !kIsSin>(s_a[k], c_a[k],
                                     hn::LoadU(df, s.b.table_sin_f + t + 2 * k * s.n),
                                     hn::LoadU(df, s.b.table_cos_f + t + 2 * k * s.n), ys, yc);
        v[k] = FloatPatterns<kOut>(kIsSin ? ys : yc);
        least = hn::Min(least, Magnitudes(DU16(), v[k]));
      }
      if (HWY_LIKELY(hn::AllFalse(DI16(), hn::Lt(least, hn::Set(DI16(), s.limit))))) {
        for (size_t k = 0; k < kFloatVectors; ++k)
          StorePatterns<kStream>(v[k], p + off + 2 * k * s.n);
      } else {
        for (size_t k = 0; k < kFloatVectors; ++k)
          Side<kStream>(s, p + 2 * k * s.n, v[k], one, kIsSin, r, 2 * k * s.n, min);
      }
    }
  }
};
#endif  // HWY_TARGET != HWY_SCALAR

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_PRECISE_HALF_FLOAT_SINKS_INL_H_
