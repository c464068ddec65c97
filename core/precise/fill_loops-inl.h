// Per-target (Highway) loops of the precise strategy: the rotation table, the anchor rows, the
// tiled order that feeds the vector sinks, the row-by-row order of the general rows, and the
// fix-up. Included once per target by precise_fill.cc, which derives why the rows are faithful.

#if defined(PEV_CORE_PRECISE_FILL_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PEV_CORE_PRECISE_FILL_LOOPS_INL_H_
#undef PEV_CORE_PRECISE_FILL_LOOPS_INL_H_
#else
#define PEV_CORE_PRECISE_FILL_LOOPS_INL_H_
#endif

#include <algorithm>

#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "peverify/core/precise/direct-inl.h"
#include "peverify/core/precise/plan.h"
#include "peverify/core/precise/rotate-inl.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::precise::HWY_NAMESPACE {

// The tiled order writes a span of rows table chunk by table chunk, and reads the whole table
// (kAnchorInterval x d/2 x 16 bytes) once per span: 2 kAnchorInterval / span of the bytes it
// writes, so 1/8 for a span of 16 anchor intervals. Each chunk's pass over the span stores to
// every row of it, one page each where rows are 4 KiB or more: spans are at most kSpanBytes, so
// that a pass's pages stay within the TLB's reach (1024-row spans of 8 KiB rows, d = 4096
// bfloat16, ran 0.8x as fast as 256-row ones; d = 512 alike either way).
constexpr uint64_t kSpanRows = 16 * kAnchorInterval;
constexpr uint64_t kSpanBytes = uint64_t{2} << 20;

// The span for rows of row_bytes: whole anchor intervals, at least one.
inline uint64_t SpanRows(size_t row_bytes) {
  const uint64_t rows =
      kSpanBytes / std::max<uint64_t>(row_bytes, 1) / kAnchorInterval * kAnchorInterval;
  return std::clamp<uint64_t>(rows, kAnchorInterval, kSpanRows);
}

inline void BuildTable(Plan& plan) {
  const DF64 d;
  const size_t n = hn::Lanes(d);
  for (uint64_t j = 0; j < kAnchorInterval; ++j) {
    const V pos = hn::Set(d, static_cast<double>(j));
    for (size_t i0 = 0; i0 < plan.padded; i0 += plan.chunk) {
      const size_t i1 = std::min(i0 + plan.chunk, plan.padded);
      double* ts = &plan.table_sin[plan.table_offset(j, i0)];
      double* tc = &plan.table_cos[plan.table_offset(j, i0)];
      for (size_t i = i0; i < i1; i += n) {
        V s, c;
        DirectSinCos(d, pos, hn::Load(d, &plan.w_hi[i]), hn::Load(d, &plan.w_lo[i]), false, s, c);
        hn::Store(s, d, ts + (i - i0));
        hn::Store(c, d, tc + (i - i0));
      }
    }
  }
  // The float copies (RN, as the float-first sinks' error bound assumes).
  for (size_t k = 0; k < kAnchorInterval * plan.padded; ++k) {
    plan.table_sin_f[k] = static_cast<float>(plan.table_sin[k]);
    plan.table_cos_f[k] = static_cast<float>(plan.table_cos[k]);
  }
}

// Lanes [i0, i1) of the anchor row at `position`, computed directly and scaled by A.
inline void Anchor(const Plan& plan, uint64_t position, size_t i0, size_t i1, double* sin_out,
                   double* cos_out) {
  const DF64 d;
  const V pos = hn::Set(d, static_cast<double>(position));
  const bool huge = static_cast<double>(position) >= kHugePosition;
  const bool scaled = plan.attention != 1;
  const V attention = hn::Set(d, plan.attention);
  for (size_t i = i0; i < i1; i += hn::Lanes(d)) {
    V s, c;
    DirectSinCos(d, pos, hn::Load(d, &plan.w_hi[i]), hn::Load(d, &plan.w_lo[i]), huge, s, c);
    if (scaled) {
      s = hn::Mul(s, attention);
      c = hn::Mul(c, attention);
    }
    hn::Store(s, d, sin_out + i);
    hn::Store(c, d, cos_out + i);
  }
}

// Lanes [i0, i1) of row `row` (position `position`, j rows past the anchor) again: pairs whose
// rotated min(|sin|, |cos|) is below `threshold` (the output's, precise_fill.h) are recomputed
// directly, and the vectors holding them stored again (the sink stored the others right).
template <class Sink>
HWY_NOINLINE void FixupRow(const Plan& plan, double fixup_threshold, const double* anchor_sin,
                           const double* anchor_cos, uint64_t j, uint64_t position, uint64_t row,
                           size_t i0, size_t i1, Sink& sink) {
  const DF64 d;
  const V pos = hn::Set(d, static_cast<double>(position));
  const bool huge = static_cast<double>(position) >= kHugePosition;
  const V threshold = hn::Set(d, fixup_threshold);
  const V attention = hn::Set(d, plan.attention);
  const double* ts = &plan.table_sin[plan.table_offset(j, i0)];
  const double* tc = &plan.table_cos[plan.table_offset(j, i0)];
  for (size_t i = i0; i < i1; i += hn::Lanes(d)) {
    V ys, yc;
    Rotate(d, anchor_sin + i, anchor_cos + i, ts + (i - i0), tc + (i - i0), ys, yc);
    const auto small = hn::Lt(hn::Min(hn::Abs(ys), hn::Abs(yc)), threshold);
    if (!hn::AllFalse(d, small)) {
      V s, c;
      DirectSinCos(d, pos, hn::Load(d, &plan.w_hi[i]), hn::Load(d, &plan.w_lo[i]), huge, s, c);
      if (plan.attention != 1) {
        s = hn::Mul(s, attention);
        c = hn::Mul(c, attention);
      }
      ys = hn::IfThenElse(small, s, ys);
      yc = hn::IfThenElse(small, c, yc);
      sink.Put(row, i, ys, yc);
    }
  }
}

// The vector sinks: spans of rows, table chunk by table chunk, anchor interval by interval.
// Each chunk of the table is then read from L1 for every anchor of the span.
template <bool kStream, class Sink>
void FillTiled(const Plan& plan, double threshold, uint64_t start, uint64_t count, size_t row_bytes,
               Sink& sink) {
  constexpr uint64_t kB = kAnchorInterval;
  const uint64_t span = SpanRows(row_bytes);
  auto anchor_sin = hwy::AllocateAligned<double>(plan.padded);
  auto anchor_cos = hwy::AllocateAligned<double>(plan.padded);
  auto anchor_sin_f = hwy::AllocateAligned<float>(plan.padded);
  auto anchor_cos_f = hwy::AllocateAligned<float>(plan.padded);
  const uint64_t end = start + count;
  for (uint64_t s = start - start % kB; s < end; s += span) {
    const uint64_t span_end = std::min(s + span, end);
    sink.Touch(std::max(s, start) - start, span_end - start);
    for (size_t i0 = 0; i0 < plan.padded; i0 += plan.chunk) {
      const size_t i1 = std::min(i0 + plan.chunk, plan.padded);
      for (uint64_t a = s; a < span_end; a += kB) {
        Anchor(plan, a, i0, i1, anchor_sin.get(), anchor_cos.get());
        if constexpr (Sink::kFloatFirst) {
          for (size_t i = i0; i < i1; ++i) {
            anchor_sin_f[i] = static_cast<float>(anchor_sin[i]);
            anchor_cos_f[i] = static_cast<float>(anchor_cos[i]);
          }
        }
        const uint64_t first = std::max(a, start);
        const uint64_t last = std::min(a + kB, span_end);
        const size_t offset = plan.table_offset(first - a, i0);
        const Block block{first - start,
                          last - first,
                          i0,
                          i1,
                          anchor_sin.get(),
                          anchor_cos.get(),
                          &plan.table_sin[offset],
                          &plan.table_cos[offset],
                          anchor_sin_f.get(),
                          anchor_cos_f.get(),
                          &plan.table_sin_f[offset],
                          &plan.table_cos_f[offset]};
        if (HWY_UNLIKELY(sink.template Rows<kStream>(block))) {
          if constexpr (kStream) hwy::FlushStream();  // order the rewrite after streamed rows
          for (uint64_t pos = first; pos < last; ++pos)
            FixupRow(plan, threshold, anchor_sin.get(), anchor_cos.get(), pos - a, pos, pos - start,
                     i0, i1, sink);
        }
      }
    }
  }
  if constexpr (kStream) hwy::FlushStream();
}

// Any output type and layout, row by row through DoubleRows.
inline void FillWhole(const Plan& plan, double threshold, uint64_t start, uint64_t count,
                      DoubleRows& sink) {
  auto anchor_sin = hwy::AllocateAligned<double>(plan.padded);
  auto anchor_cos = hwy::AllocateAligned<double>(plan.padded);
  const uint64_t end = start + count;
  for (uint64_t a = start - start % kAnchorInterval; a < end; a += kAnchorInterval) {
    Anchor(plan, a, 0, plan.padded, anchor_sin.get(), anchor_cos.get());
    const uint64_t last = std::min(a + kAnchorInterval, end);
    for (uint64_t pos = std::max(a, start); pos < last; ++pos) {
      for (size_t i0 = 0; i0 < plan.padded; i0 += plan.chunk) {
        const size_t offset = plan.table_offset(pos - a, i0);
        sink.Rotated({pos - start, 1, i0, std::min(i0 + plan.chunk, plan.padded), anchor_sin.get(),
                      anchor_cos.get(), &plan.table_sin[offset], &plan.table_cos[offset]});
      }
      if (HWY_UNLIKELY(sink.NeedsFixup())) {
        for (size_t i0 = 0; i0 < plan.padded; i0 += plan.chunk)
          FixupRow(plan, threshold, anchor_sin.get(), anchor_cos.get(), pos - a, pos, pos - start,
                   i0, std::min(i0 + plan.chunk, plan.padded), sink);
      }
      sink.Write(pos - start);
    }
  }
}

template <class Sink>
void FillTiledMaybeStreaming(const Plan& plan, double threshold, uint64_t start, uint64_t count,
                             size_t row_bytes, bool stream, Sink& sink) {
  if (stream) {
    FillTiled<true>(plan, threshold, start, count, row_bytes, sink);
  } else {
    FillTiled<false>(plan, threshold, start, count, row_bytes, sink);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // PEV_CORE_PRECISE_FILL_LOOPS_INL_H_
