// Per-target (Highway) code of the precise strategy: the rotation of an anchor row by a tabulated
// angle, and the sinks that convert and store the rotated rows (the hot loops). Included once per
// target by precise_fill.cc; the error bound of the rotation is derived there.

#if defined(PEV_CORE_PRECISE_ROTATE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_CORE_PRECISE_ROTATE_INL_H_
#undef PEV_CORE_PRECISE_ROTATE_INL_H_
#else
#define PEV_CORE_PRECISE_ROTATE_INL_H_
#endif

#include <cmath>
#include <limits>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "peverify/core/precise/plan.h"
#include "peverify/core/precise/precise_fill.h"
#include "peverify/core/precise/row_shape.h"
#include "peverify/core/row_writer.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::precise::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF64 = hn::ScalableTag<double>;
using V = hn::Vec<DF64>;

// (ys, yc) = the anchor (S, C) rotated by the table's (s_j, c_j): one FMA and one product each.
HWY_INLINE void Rotate(V s_a, V c_a, V s_j, V c_j, V& ys, V& yc) {
  ys = hn::MulAdd(s_a, c_j, hn::Mul(c_a, s_j));
  yc = hn::MulSub(c_a, c_j, hn::Mul(s_a, s_j));
}

HWY_INLINE void Rotate(DF64 d, const double* anchor_sin, const double* anchor_cos,
                       const double* table_sin, const double* table_cos, V& ys, V& yc) {
  Rotate(hn::Load(d, anchor_sin), hn::Load(d, anchor_cos), hn::Load(d, table_sin),
         hn::Load(d, table_cos), ys, yc);
}

// Pairs per chunk of the double and the float table on this target: plan.h's, or 8 vectors where
// that is more (AVX-512: 64 and 128 pairs, a 64 KiB chunk read from L2). Each row then takes 512
// bytes a run in either output: on a Zen 5 virtual machine (AMD EPYC family 26) 512-bit streamed
// stores of 256-byte runs reached 0.66 of sequential stores, 512-byte runs 1.0 (256 sufficed on
// Zen 3 with AVX2); bfloat16 and float32 rows at 131072 x 512 ran 1.45x faster.
constexpr size_t kTargetDoubleChunkPairs = HWY_MAX(kDoubleChunkPairs, 8 * hn::MaxLanes(DF64()));
constexpr size_t kTargetFloatChunkPairs = HWY_MAX(kFloatChunkPairs, 16 * hn::MaxLanes(DF64()));

// Vectors in a full chunk of the double table: the hot loops keep that many anchor vectors in
// registers.
constexpr size_t kChunkVectors = HWY_MAX(size_t{1}, kTargetDoubleChunkPairs / hn::MaxLanes(DF64()));

// min(|a|, |b|) lane by lane.
template <class VT>
HWY_INLINE VT MinMagnitude(VT a, VT b) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // Highway 1.0.3 has no min-magnitude op: AVX-512DQ's vrange does it in one instruction
  // (imm 0b1010: the smaller magnitude, sign cleared).
  if constexpr (sizeof(hn::TFromV<VT>) == 4) {
    return VT{_mm512_range_ps(a.raw, b.raw, 0b1010)};
  } else {
    return VT{_mm512_range_pd(a.raw, b.raw, 0b1010)};
  }
#else
  return hn::Min(hn::Abs(a), hn::Abs(b));
#endif
}

// min(least, |v|) lane by lane, where least holds magnitudes already (a running minimum): one
// instruction fewer than MinMagnitude where there is no min-magnitude op.
template <class VT>
HWY_INLINE VT LeastMagnitude(VT least, VT v) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  return MinMagnitude(least, v);
#else
  return hn::Min(least, hn::Abs(v));
#endif
}

// A block of rotated rows: rows row0 .. row0 + rows - 1 of the output, lanes [i0, i1) (one table
// chunk), rotated from one anchor. The table pointers point at the block's first row in the chunk;
// a chunk row is i1 - i0 doubles.
struct Block {
  uint64_t row0;
  size_t rows, i0, i1;
  const double *anchor_sin, *anchor_cos, *table_sin, *table_cos;
  // Float copies for the float-first sinks: anchors [padded] (set when Sink::kFloatFirst), the
  // table at the block's first row.
  const float *anchor_sin_f = nullptr, *anchor_cos_f = nullptr;
  const float *table_sin_f = nullptr, *table_cos_f = nullptr;
};

// The hot loop of the double sinks: every row of block b rotated one vector of N pairs at a time,
// each handed to put(r, i, ys, yc) with r the row within the block and i the first pair's offset
// in the chunk. A full chunk keeps its anchors in registers and unrolls the loop over vectors.
template <class Put>
HWY_INLINE void ForEachRotated(const Block& b, const Put& put) {
  const DF64 d;
  const size_t n = hn::Lanes(d);
  const size_t chunk = b.i1 - b.i0;
  if (chunk == kChunkVectors * n) {
    V s_a[kChunkVectors], c_a[kChunkVectors];
    for (size_t k = 0; k < kChunkVectors; ++k) {
      s_a[k] = hn::Load(d, b.anchor_sin + b.i0 + k * n);
      c_a[k] = hn::Load(d, b.anchor_cos + b.i0 + k * n);
    }
    for (size_t r = 0; r < b.rows; ++r) {
      const double* ts = b.table_sin + r * chunk;
      const double* tc = b.table_cos + r * chunk;
      for (size_t k = 0; k < kChunkVectors; ++k) {
        V ys, yc;
        Rotate(s_a[k], c_a[k], hn::Load(d, ts + k * n), hn::Load(d, tc + k * n), ys, yc);
        put(r, k * n, ys, yc);
      }
    }
    return;
  }
  for (size_t r = 0; r < b.rows; ++r) {
    for (size_t i = 0; i < chunk; i += n) {
      V ys, yc;
      Rotate(d, b.anchor_sin + b.i0 + i, b.anchor_cos + b.i0 + i, b.table_sin + r * chunk + i,
             b.table_cos + r * chunk + i, ys, yc);
      put(r, i, ys, yc);
    }
  }
}

// Prefetches one line of every 4 KiB page in [begin, end): the translations are then looked up
// (page walks, costly in a virtual machine) all at once, ahead of the stores, rather than one by
// one as each row's first store stalls on its own. Tiled fills visit ~one page per row in a chunk
// pass, so a table larger than the TLB reaches (128 MiB with 4 KiB pages) otherwise loses ~20%. A
// prefetch walks the page as a load does but waits for nothing: reading the byte instead cost ~7%
// of a fill whose lines had been streamed out to DRAM (each load a DRAM round trip).
inline void TouchPages(const void* begin, const void* end) {
  const auto* p = static_cast<const char*>(begin);
  for (; p < static_cast<const char*>(end); p += 4096) __builtin_prefetch(p, 0, 0);
}

// Sinks of float32 rows. Rows<kStream>(block) rotates and stores a block (the hot loop, its state
// in registers) and returns whether some pair in it may have min(|sin|, |cos|) below the plan's
// fixup_threshold: it may over-report (FixupRow applies the exact test), never miss. Put() stores
// one vector of a row with plain stores, for the fix-up. Touch(r0, r1) reads rows [r0, r1)'s pages
// (TouchPages) before the tiled order writes them.

#if HWY_TARGET != HWY_SCALAR  // one-lane vectors cannot be combined; DoubleRows serves them
using DF = hn::Repartition<float, DF64>;  // 2N floats: a whole vector
using DH = hn::Rebind<float, DF64>;       // N floats: half a vector
using ZipIdx = decltype(hn::IndicesFromVec(DF(), hn::Zero(hn::RebindToSigned<DF>())));

// Indices that zip two half vectors combined as [a, b] into [a_0, b_0, a_1, b_1, ...].
HWY_INLINE ZipIdx ZipIndices() {
  const DF df;
  const hn::RebindToSigned<DF> di;
  const auto iota = hn::Iota(di, 0);
  const auto n = hn::Set(di, static_cast<int32_t>(hn::Lanes(DF64())));
  return hn::IndicesFromVec(
      df, hn::Add(hn::ShiftRight<1>(iota), hn::Mul(hn::And(iota, hn::Set(di, 1)), n)));
}

// [a_0, b_0, a_1, b_1, ..., a_{N-1}, b_{N-1}] from two half vectors.
HWY_INLINE hn::Vec<DF> ZipHalves(hn::Vec<DH> a, hn::Vec<DH> b, ZipIdx idx) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // Highway 1.0.3 has no two-table lookup: one vpermt2ps instead of an insert and a vpermps.
  (void)idx;
  const __m512i both = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  return hn::Vec<DF>{
      _mm512_permutex2var_ps(_mm512_castps256_ps512(a.raw), both, _mm512_castps256_ps512(b.raw))};
#else
  return hn::TableLookupLanes(hn::Combine(DF(), b, a), idx);
#endif
}

// Zipped float32 rows (interleaved, polar, the rotary pair caches): both values of each pair
// demoted, then one lane permutation.
template <Pairing kPairing>
class ZippedF32 {
 public:
  static constexpr bool kFloatFirst = false;
  ZippedF32(float* table, size_t width, double threshold)
      : table_(table), width_(width), threshold_(static_cast<float>(threshold)) {}
  static constexpr bool CanStream(size_t /* half */) { return true; }
  void Touch(uint64_t r0, uint64_t r1) const {
    TouchPages(table_ + r0 * width_, table_ + r1 * width_);
  }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Block b = block;  // a local copy: the stores below may not alias it
    const DF df;
    const auto idx = ZipIndices();
    auto min = hn::Set(df, std::numeric_limits<float>::infinity());
    const size_t width = width_;  // a local: the stores may alias the member
    float* HWY_RESTRICT row = table_ + b.row0 * width + 2 * b.i0;
    ForEachRotated(b, [&](size_t r, size_t i, V ys, V yc) HWY_ATTR {
      const auto v = Zip(ys, yc, idx);
      min = LeastMagnitude(min, v);
      if constexpr (kStream) {
        hn::Stream(v, df, row + r * width + 2 * i);
      } else {
        hn::StoreU(v, df, row + r * width + 2 * i);
      }
    });
    // Rounding is monotonic: |y| < T gives |fl(y)| <= fl(T), so this never misses a pair to fix.
    return hn::GetLane(hn::MinOfLanes(df, min)) <= threshold_;
  }
  void Put(uint64_t row, size_t i, V ys, V yc) const {
    hn::StoreU(Zip(ys, yc, ZipIndices()), DF(), table_ + row * width_ + 2 * i);
  }

 private:
  static HWY_INLINE hn::Vec<DF> Zip(V ys, V yc, ZipIdx idx) {
    const DH dh;
    if constexpr (kPairing == Pairing::kCosCos || kPairing == Pairing::kSinSin) {
      const auto f = hn::DemoteTo(dh, kPairing == Pairing::kCosCos ? yc : ys);
      return ZipHalves(f, f, idx);
    } else {
      V first, second;
      zip_pair(kPairing, ys, yc, first, second);
      return ZipHalves(hn::DemoteTo(dh, first), hn::DemoteTo(dh, second), idx);
    }
  }
  float* table_;
  size_t width_;
  float threshold_;
};
#endif  // HWY_TARGET != HWY_SCALAR

// sin and cos each to zero, one or two places in the row (halves and rotary layouts).
class SplitF32 {
 public:
  static constexpr bool kFloatFirst = false;
  using DH = hn::Rebind<float, DF64>;  // N floats, half a vector
  // Streaming a half vector is only safe when it is a whole native register (>= 16 bytes).
  static constexpr bool kCanStream = HWY_MAX_BYTES / 2 >= 16;
  SplitF32(float* table, size_t width, double threshold, const RowShape& shape)
      : table_(table),
        width_(width),
        threshold_(threshold),
        sin_{shape.sin_runs[0], shape.sin_runs[1]},
        cos_{shape.cos_runs[0], shape.cos_runs[1]},
        run_by_run_(runs_apart_4k(shape, sizeof(float))) {}
  static constexpr bool CanStream(size_t /* half */) { return true; }
  void Touch(uint64_t r0, uint64_t r1) const {
    TouchPages(table_ + r0 * width_, table_ + r1 * width_);
  }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Block b = block;  // a local copy: the stores below may not alias it
    const DF64 d;
    V min = hn::Set(d, std::numeric_limits<double>::infinity());
    const size_t width = width_;  // a local: the stores may alias the member
    float* HWY_RESTRICT row = table_ + b.row0 * width + b.i0;
    if (HWY_UNLIKELY(run_by_run_)) {  // one run of the rows at a time (runs_apart_4k)
      for (const int* runs : {sin_, cos_}) {
        const bool sin = runs == sin_;
        for (int x = 0; x < 2; ++x) {
          if (runs[x] < 0) continue;
          float* HWY_RESTRICT run = row + runs[x];
          ForEachRotated(b, [&](size_t r, size_t i, V ys, V yc) HWY_ATTR {
            min = hn::Min(min, MinMagnitude(ys, yc));
            StoreOne<kStream>(sin ? ys : yc, run + r * width + i);
          });
        }
      }
    } else {
      ForEachRotated(b, [&](size_t r, size_t i, V ys, V yc) HWY_ATTR {
        min = hn::Min(min, MinMagnitude(ys, yc));
        Store<kStream>(ys, yc, row + r * width + i);
      });
    }
    return hn::GetLane(hn::MinOfLanes(d, min)) < threshold_;
  }
  void Put(uint64_t row, size_t i, V ys, V yc) const {
    Store<false>(ys, yc, table_ + row * width_ + i);
  }

 private:
  // y rounded to float at p.
  template <bool kStream>
  static HWY_INLINE void StoreOne(V y, float* HWY_RESTRICT p) {
    const DH dh;
    if constexpr (kStream && kCanStream) {
      hn::Stream(hn::DemoteTo(dh, y), dh, p);
    } else {
      hn::StoreU(hn::DemoteTo(dh, y), dh, p);
    }
  }
  template <bool kStream>
  HWY_INLINE void Store(V ys, V yc, float* HWY_RESTRICT p) const {
    for (int off : sin_)
      if (off >= 0) StoreOne<kStream>(ys, p + off);
    for (int off : cos_)
      if (off >= 0) StoreOne<kStream>(yc, p + off);
  }
  float* table_;
  size_t width_;
  double threshold_;
  int sin_[2], cos_[2];
  bool run_by_run_;
};

// Any output type and layout, one row at a time: the row's doubles go to scratch, then RowWriter
// rounds each once to the output type.
class DoubleRows {
 public:
  static constexpr bool kFloatFirst = false;
  DoubleRows(const TableSpec& spec, size_t padded, double threshold, Dtype output,
             Conversion conversion, void* out)
      : writer_(spec, output, conversion),
        threshold_(threshold),
        out_(out),
        sin_(hwy::AllocateAligned<double>(padded)),
        cos_(hwy::AllocateAligned<double>(padded)),
        pairs_(spec.d_model / 2) {}
  // One row (b.rows == 1) of one chunk, into the scratch row.
  void Rotated(const Block& b) {
    const DF64 d;
    for (size_t i = b.i0; i < b.i1; i += hn::Lanes(d)) {
      V ys, yc;
      Rotate(d, b.anchor_sin + i, b.anchor_cos + i, b.table_sin + (i - b.i0),
             b.table_cos + (i - b.i0), ys, yc);
      Put(b.row0, i, ys, yc);
    }
  }
  bool NeedsFixup() const {
    for (int k = 0; k < pairs_; ++k)
      if (std::fmin(std::fabs(sin_[k]), std::fabs(cos_[k])) < threshold_) return true;
    return false;
  }
  void Put(uint64_t, size_t i, V ys, V yc) {
    hn::Store(ys, DF64(), sin_.get() + i);
    hn::Store(yc, DF64(), cos_.get() + i);
  }
  void Write(uint64_t row) { writer_.write(sin_.get(), cos_.get(), out_, row); }

 private:
  RowWriter<double> writer_;
  double threshold_;
  void* out_;
  hwy::AlignedFreeUniquePtr<double[]> sin_, cos_;
  int pairs_;
};

}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_PRECISE_ROTATE_INL_H_
