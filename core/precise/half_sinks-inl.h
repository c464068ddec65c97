// Per-target (Highway) sinks of the precise strategy for float16 and bfloat16 rows: each rotated
// double rounded once to the 16-bit format, vectorised (round to odd to float, then to nearest:
// core/convert-inl.h proves it equals one rounding). Included once per target by precise_fill.cc,
// after rotate-inl.h, whose Block, Rotate and zip helpers they share.
//
// The fix-up test runs on the float intermediates: round to odd is monotonic, so |y| < T gives
// |RO(y)| <= RO(T) <= RU(T), the float at or above T; comparing with RU(max(T, 2^-126)) never
// misses a value to recompute, nor a bfloat16 subnormal, which only the fix-up's stores
// (HalfBitsFromF64 with its subnormal path) round.

#if defined(PEV_CORE_PRECISE_HALF_SINKS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_CORE_PRECISE_HALF_SINKS_INL_H_
#undef PEV_CORE_PRECISE_HALF_SINKS_INL_H_
#else
#define PEV_CORE_PRECISE_HALF_SINKS_INL_H_
#endif

#include <cmath>
#include <limits>

#include "hwy/highway.h"
#include "peverify/core/convert-inl.h"
#include "peverify/core/precise/rotate-inl.h"
#include "peverify/core/precise/row_shape.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::precise::HWY_NAMESPACE {

#if HWY_TARGET != HWY_SCALAR  // one-lane vectors cannot be combined; DoubleRows serves them
using core::HWY_NAMESPACE::DemoteToOddF32;
using core::HWY_NAMESPACE::HalfBitsFromF64;
using core::HWY_NAMESPACE::ToHalfBits;
using DU16 = hn::Rebind<uint16_t, DF>;  // 2N 16-bit patterns, half a register

// The float that the fix-up test compares the intermediates with (see the top of this file).
inline float HalfThreshold(double threshold) {
  const double t = std::max(threshold, 0x1p-126);
  auto f = static_cast<float>(t);
  if (f < t) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// AVX512_BF16's VCVTNEPS2BF16 rounds 16 floats to bfloat16, to nearest even, in one instruction
// where Highway's integer rounding takes six (Zen 4, Cooper Lake, Sapphire Rapids have it).
// Highway 1.0.3 has no target with it, so it is inline assembly, chosen at run time. It reads
// float subnormals as zero, which the sinks never give it (see the top of this file).
inline bool HasNativeBF16() {
  static const bool has = __builtin_cpu_supports("avx512bf16");
  return has;
}
#else
inline bool HasNativeBF16() { return false; }
#endif

// 2N floats -> 2N 16-bit patterns of kOut (kNative: VCVTNEPS2BF16): values are finite (no NaN
// path), and lanes under 2^-126 are rewritten by the fix-up.
template <Dtype kOut, bool kNative>
HWY_INLINE hn::Vec<DU16> HalfBits(hn::Vec<DF> v) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kNative) {
    static_assert(kOut == Dtype::kBFloat16);
    __m256i r;
    asm("vcvtneps2bf16 %1, %0" : "=v"(r) : "v"(v.raw));
    return hn::Vec<DU16>{r};
  }
#endif
  return ToHalfBits</*kMayBeNaN=*/false>(DF(), v, kOut, Conversion::kNearestEven);
}

// N doubles -> N 16-bit patterns, every case handled (the fix-up's stores).
template <Dtype kOut>
HWY_INLINE void StoreHalfBits(V y, uint16_t* out) {
  const hn::Rebind<uint16_t, DF64> du;
  hn::StoreU(HalfBitsFromF64(DF64(), y, kOut, Conversion::kNearestEven), du, out);
}

// Streamed stores must fill a whole register (16 bytes at least).
constexpr bool kHalfWholeRegister = hn::MaxLanes(DU16()) * 2 >= 16;

// 2N patterns at p, streamed when asked and possible.
template <bool kStream>
HWY_INLINE void StorePatterns(hn::Vec<DU16> bits, uint16_t* HWY_RESTRICT p) {
  if constexpr (kStream && kHalfWholeRegister) {
    hn::Stream(bits, DU16(), p);
  } else {
    hn::StoreU(bits, DU16(), p);
  }
}

// What both 16-bit sinks hold: the table, its row width and the fix-up threshold as a float
// (HalfThreshold); float16 tracks no minimum, as it needs no fix-up.
template <Dtype kOut>
class HalfTable {
 public:
  static constexpr bool kTrack = kOut != Dtype::kFloat16;
  // Streamed stores are 4N bytes (2N patterns): the table must be aligned to that.
  static constexpr size_t kStreamAlignment = 4 * hn::MaxLanes(DF64());
  HalfTable(uint16_t* table, size_t width, double threshold)
      : table_(table), width_(width), threshold_(HalfThreshold(threshold)) {}
  // Whether the tracked minimum may hold a value to fix up.
  bool Flagged(hn::Vec<DF> min) const {
    return kTrack && hn::GetLane(hn::MinOfLanes(DF(), min)) <= threshold_;
  }
  uint16_t* table() const { return table_; }
  size_t width() const { return width_; }
  void Touch(uint64_t r0, uint64_t r1) const {
    TouchPages(table_ + r0 * width_, table_ + r1 * width_);
  }

 protected:
  uint16_t* table_;
  size_t width_;
  float threshold_;
};

// 2N values of one kind (sines or cosines) from two rotated vectors of N pairs -> their 2N
// patterns, each double rounded once (to odd, then to nearest: core/convert-inl.h); the smaller
// magnitudes tracked in min where the output has a fix-up.
template <Dtype kOut, bool kNative>
HWY_INLINE hn::Vec<DU16> DoublePatterns(V y0, V y1, hn::Vec<DF>& min) {
  const DF64 d;
  const auto v = hn::Combine(DF(), DemoteToOddF32(d, y1), DemoteToOddF32(d, y0));
  if constexpr (HalfTable<kOut>::kTrack) min = LeastMagnitude(min, v);
  return HalfBits<kOut, kNative>(v);
}

// Zipped 16-bit rows (interleaved, polar, the rotary pair caches): the pair's two values rounded
// to odd, zipped as floats, then rounded to the 16-bit format: 2N values, 4N bytes, per store.
template <Dtype kOut, bool kNative, Pairing kPairing>
class ZippedHalf : public HalfTable<kOut> {
  using Base = HalfTable<kOut>;
  using Base::table_;
  using Base::width_;

 public:
  using Base::Flagged;
  using Base::kTrack;
  static constexpr bool kFloatFirst = false;
  using DU = DU16;
  ZippedHalf(uint16_t* table, size_t width, double threshold) : Base(table, width, threshold) {}
  // Rows and pairs stay aligned to 4N bytes.
  static constexpr bool CanStream(size_t /* half */) { return kHalfWholeRegister; }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Block b = block;  // a local copy: the stores below may not alias it
    const auto idx = ZipIndices();
    auto min = hn::Set(DF(), std::numeric_limits<float>::infinity());
    const size_t width = width_;  // a local: the stores may alias the member
    uint16_t* HWY_RESTRICT row = table_ + b.row0 * width + 2 * b.i0;
    ForEachRotated(b, [&](size_t r, size_t i, V ys, V yc)
                          HWY_ATTR { Store<kStream>(row + r * width + 2 * i, ys, yc, idx, min); });
    return Flagged(min);
  }
  // One vector of N pairs at p (2N values), the smaller magnitudes tracked in min.
  template <bool kStream>
  static HWY_INLINE void Store(uint16_t* HWY_RESTRICT p, V ys, V yc, ZipIdx idx, hn::Vec<DF>& min) {
    StorePatterns<kStream>(Bits(ys, yc, idx, min), p);
  }
  // The 2N patterns that Store stores.
  static HWY_INLINE hn::Vec<DU16> Bits(V ys, V yc, ZipIdx idx, hn::Vec<DF>& min) {
    const auto v = Zip(ys, yc, idx);
    if constexpr (kTrack) min = LeastMagnitude(min, v);
    return HalfBits<kOut, kNative>(v);
  }
  void Put(uint64_t row, size_t i, V ys, V yc) const {
    HWY_ALIGN uint16_t s[hn::MaxLanes(DF64())], c[hn::MaxLanes(DF64())];
    StoreHalfBits<kOut>(ys, s);
    StoreHalfBits<kOut>(yc, c);
    uint16_t* p = table_ + row * width_ + 2 * i;
    for (size_t j = 0; j < hn::Lanes(DF64()); ++j)
      zip_pair(kPairing, s[j], c[j], p[2 * j], p[2 * j + 1]);
  }

 private:
  static HWY_INLINE hn::Vec<DF> Zip(V ys, V yc, ZipIdx idx) {
    const DF64 d;
    if constexpr (kPairing == Pairing::kCosCos || kPairing == Pairing::kSinSin) {
      const auto f = DemoteToOddF32(d, kPairing == Pairing::kCosCos ? yc : ys);
      return ZipHalves(f, f, idx);
    } else {
      V first, second;
      zip_pair(kPairing, ys, yc, first, second);
      return ZipHalves(DemoteToOddF32(d, first), DemoteToOddF32(d, second), idx);
    }
  }
};

// 16-bit rows in runs (halves and the other rotary caches): two vectors of pairs at a time, so
// that one float vector of 2N values is rounded and stored per run (4N bytes). kSin / kCos: the
// layout stores that value (a cos cache neither rounds nor tests its sines).
template <Dtype kOut, bool kNative, bool kSin, bool kCos>
class RunsHalf : public HalfTable<kOut> {
  using Base = HalfTable<kOut>;
  using Base::table_;
  using Base::width_;

 public:
  using Base::Flagged;
  using Base::kTrack;
  static constexpr bool kFloatFirst = false;
  using DU = DU16;
  using DUH = hn::Rebind<uint16_t, DH>;  // N patterns
  RunsHalf(uint16_t* table, size_t width, double threshold, const RowShape& shape)
      : Base(table, width, threshold),
        sin_{shape.sin_runs[0], shape.sin_runs[1]},
        cos_{shape.cos_runs[0], shape.cos_runs[1]} {}
  // Streamed stores must fill a whole register, at 4N-byte aligned addresses: runs start at 0 or
  // d/2, and pairs go two vectors at a time, so d/2 must be a multiple of 2N.
  static constexpr bool CanStream(size_t half) {
    return kHalfWholeRegister && half % (2 * hn::MaxLanes(DF64())) == 0;
  }
  template <bool kStream>
  HWY_INLINE bool Rows(const Block& block) const {
    const Block b = block;  // a local copy: the stores below may not alias it
    const DF64 d;
    const DF df;
    const size_t n = hn::Lanes(d);
    const size_t chunk = b.i1 - b.i0;
    auto min = hn::Set(df, std::numeric_limits<float>::infinity());
    const size_t width = width_;  // a local: the stores may alias the member
    uint16_t* HWY_RESTRICT row = table_ + b.row0 * width + b.i0;
    // Lanes [i, i + 2N) of a row, from two rotated vectors.
    const auto put2 = [&](uint16_t* HWY_RESTRICT p, V ys0, V yc0, V ys1, V yc1) HWY_ATTR {
      if constexpr (kSin) Store2<kStream>(ys0, ys1, p, sin_, min);
      if constexpr (kCos) Store2<kStream>(yc0, yc1, p, cos_, min);
    };
    if (chunk == kChunkVectors * n && kChunkVectors % 2 == 0) {  // anchors in registers
      V s_a[kChunkVectors], c_a[kChunkVectors];
      for (size_t k = 0; k < kChunkVectors; ++k) {
        s_a[k] = hn::Load(d, b.anchor_sin + b.i0 + k * n);
        c_a[k] = hn::Load(d, b.anchor_cos + b.i0 + k * n);
      }
      for (size_t r = 0; r < b.rows; ++r, row += width) {
        const double* ts = b.table_sin + r * chunk;
        const double* tc = b.table_cos + r * chunk;
        for (size_t k = 0; k < kChunkVectors; k += 2) {
          V ys0, yc0, ys1, yc1;
          Rotate(s_a[k], c_a[k], hn::Load(d, ts + k * n), hn::Load(d, tc + k * n), ys0, yc0);
          Rotate(s_a[k + 1], c_a[k + 1], hn::Load(d, ts + (k + 1) * n),
                 hn::Load(d, tc + (k + 1) * n), ys1, yc1);
          put2(row + k * n, ys0, yc0, ys1, yc1);
        }
      }
    } else {
      for (size_t r = 0; r < b.rows; ++r, row += width) {
        const double* ts = b.table_sin + r * chunk;
        const double* tc = b.table_cos + r * chunk;
        const double* as = b.anchor_sin + b.i0;
        const double* ac = b.anchor_cos + b.i0;
        size_t i = 0;
        for (; i + 2 * n <= chunk; i += 2 * n) {
          V ys0, yc0, ys1, yc1;
          Rotate(d, as + i, ac + i, ts + i, tc + i, ys0, yc0);
          Rotate(d, as + i + n, ac + i + n, ts + i + n, tc + i + n, ys1, yc1);
          put2(row + i, ys0, yc0, ys1, yc1);
        }
        if (i < chunk) {  // an odd vector at the end: plain stores of N values
          V ys, yc;
          Rotate(d, as + i, ac + i, ts + i, tc + i, ys, yc);
          if constexpr (kSin) Store1(ys, row + i, sin_, min);
          if constexpr (kCos) Store1(yc, row + i, cos_, min);
        }
      }
    }
    return Flagged(min);
  }
  const int (&sin_runs() const)[2] { return sin_; }
  const int (&cos_runs() const)[2] { return cos_; }
  void Put(uint64_t row, size_t i, V ys, V yc) const {
    HWY_ALIGN uint16_t s[hn::MaxLanes(DF64())], c[hn::MaxLanes(DF64())];
    StoreHalfBits<kOut>(ys, s);
    StoreHalfBits<kOut>(yc, c);
    uint16_t* p = table_ + row * width_ + i;
    for (size_t j = 0; j < hn::Lanes(DF64()); ++j) {
      for (int off : sin_)
        if (off >= 0) p[off + j] = s[j];
      for (int off : cos_)
        if (off >= 0) p[off + j] = c[j];
    }
  }
  // Lanes [i, i + 2N) of one value's runs at p, from two rotated vectors (4N bytes per run).
  template <bool kStream>
  static HWY_INLINE void Store2(V y0, V y1, uint16_t* HWY_RESTRICT p, const int (&runs)[2],
                                hn::Vec<DF>& min) {
    const auto bits = DoublePatterns<kOut, kNative>(y0, y1, min);
    for (int off : runs)
      if (off >= 0) StorePatterns<kStream>(bits, p + off);
  }
  // N values at p + each run, plain stores (an odd vector at the end of a chunk).
  static HWY_INLINE void Store1(V y, uint16_t* HWY_RESTRICT p, const int (&runs)[2],
                                hn::Vec<DF>& min) {
    const auto f = DemoteToOddF32(DF64(), y);
    if constexpr (kTrack) min = LeastMagnitude(min, hn::Combine(DF(), f, f));
    const auto bits = ToHalfBits<false>(DH(), f, kOut, Conversion::kNearestEven);
    for (int off : runs)
      if (off >= 0) hn::StoreU(bits, DUH(), p + off);
  }
  int sin_[2], cos_[2];
};
#endif  // HWY_TARGET != HWY_SCALAR

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_PRECISE_HALF_SINKS_INL_H_
