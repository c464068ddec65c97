// The precise strategy (ours): float64 arithmetic that rounds once to the output type, faithful
// for every position below 2^24 (the derivation is in direct-inl.h and precise_fill.cc).
//   - w_k in double-double (frequencies.h), anchors every kAnchorInterval rows computed directly;
//   - rows in between by ONE rotation of the anchor by a tabulated angle j w_k (no accumulation);
//   - outputs below kFixupThreshold recomputed directly (the rotation's error is absolute).
// Vectorised with Highway, target chosen at run time.
#pragma once

#include <cstdint>
#include <string>

#include "peverify/core/implementation.h"
#include "peverify/core/precise/plan.h"

namespace pev::core::precise {

// Rotated outputs smaller than this in magnitude, in units of A, are recomputed directly (derived
// at the top of precise_fill.cc): float32's; bfloat16's coarser ulps need it only far lower, and
// float16's, clamped at 2^-24, never while A <= 2^23.
inline constexpr double kFixupThreshold = 0x1p-22;
inline constexpr double kFixupThresholdBF16 = 0x1p-39;

// The fix-up threshold of `output` for the plan's attention factor (exact: A~ times a power of
// two; 0: no fix-up).
inline double fixup_threshold(const Plan& plan, Dtype output) {
  switch (output) {
    case Dtype::kFloat16:
      return plan.attention <= 0x1p23 ? 0.0 : plan.attention * kFixupThreshold;
    case Dtype::kBFloat16:
      return plan.attention * kFixupThresholdBF16;
    default:
      return plan.attention * kFixupThreshold;
  }
}

// The float rotation's error bound (derived in float_rotation-inl.h): |y_f - A v| <= A B + 2^-24
// |y_f|, with B = 3 2^-24 (1 + 2^-22) in units of A (the inputs' roundings and the product's) and
// 2^-24 |y_f| the final FMA's. Its float16 and bfloat16 outputs are rounded in float wherever the
// format's gap below the rounded value exceeds twice that (float_rotation_limit), the others by
// the double rotation.
inline constexpr double kFloatRotationBound = 0x1.800006p-23;  // B: 3 2^-24 (1 + 2^-22)
inline constexpr double kFloatRotationRelative = 0x1p-24;      // of |y_f|

// A B for `output` and the plan's attention factor (A~ kFloatRotationBound rounded once: at least
// A 3 2^-24 (1 + 2^-22) (1 - 2^-52), above the derivation's A 3 2^-24 (1 + 2^-23.1)); 0 where the
// float rotation does not serve them (float32, or A beyond the range its bound holds for).
inline double float_rotation_bound(const Plan& plan, Dtype output) {
  const double a = plan.attention;
  switch (output) {
    case Dtype::kFloat16:
      return a >= 0x1p-60 && a <= 0x1p15 ? a * kFloatRotationBound : 0.0;
    case Dtype::kBFloat16:
      return a >= 0x1p-60 && a <= 0x1p60 ? a * kFloatRotationBound : 0.0;
    default:
      return 0.0;
  }
}

// The least 16-bit pattern of `output` (float16 or bfloat16) from which on every pattern's gap
// below (to the next value towards zero; for pattern 0, to the least negative subnormal) exceeds
// 2 (bound + 2^-24 |y_f|) for every y_f rounding to it: a rotated value rounded to a magnitude at
// or above it is faithful (float_rotation-inl.h). bound: float_rotation_bound's.
int16_t float_rotation_limit(Dtype output, double bound);

// Fills of at least this many bytes use non-temporal stores (when aligned): they skip the read for
// ownership and do not evict the caller's data. Measured on a 32 MiB L3: float32 fills of 16 MiB
// ran 1.7x faster streamed, 4 and 8 MiB 16-bit and float32 fills per thread up to
// 1.6x faster with plain stores, which leave the table in cache. Fixed, not half the last-level
// cache: sysconf reports the host's 320 MiB inside this virtual machine.
inline constexpr uint64_t kStreamBytes = uint64_t{16} << 20;

// Fills positions spec.start .. spec.start + count - 1 (every layout) as `output`: float for
// float32, uint16 bit patterns for float16 / bfloat16. Safe to call concurrently.
void fill(const TableSpec& spec, uint64_t count, Dtype output, Conversion conversion, void* out);

// The same rows through the general path (every value rounded by RowWriter, no vector sink): what
// the vector sinks must equal bit for bit (crosscheck/precise_sinks_test.cc).
void fill_reference(const TableSpec& spec, uint64_t count, Dtype output, Conversion conversion,
                    void* out);

// The targets compiled in, best first, e.g. "AVX3 AVX2 SSE4 SSSE3 SCALAR".
std::string compiled_targets();

}  // namespace pev::core::precise
