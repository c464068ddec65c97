// Rows of the precise strategy: an anchor row computed directly every kAnchorInterval positions,
// the rows in between by one rotation, small outputs fixed up. Highway, one copy per target.
//
// Rotation bound. A row at pos = a + j (a the anchor, 0 <= j < B) is
//   ys = S c_j + C s_j,  yc = C c_j - S s_j   (one FMA and one product each, or unfused),
// with S, C the anchor's direct sin, cos (theta = a w) and s_j, c_j the table's (phi = j w), each
// within 4u |value| + E of the exact value (direct-inl.h; E <= 2^-77 for pos < 2^24,
// <= 2^-55 for pos < 2^45). First order in u, with |sin th cos ph| + |cos th sin ph| <= 1
// (Cauchy-Schwarz) and |sin th| + |cos th| <= sqrt 2:
//   |S c_j - sin th cos ph| + |C s_j - cos th sin ph| <= 8u (|sin th cos ph| + |cos th sin ph|)
//                                                       + 2 (E_a + E_j) <= 8u + 2^-76,
// plus the roundings: products u (|S c_j| + |C s_j|) <= u (1 + 9u), the sum u |y| <= u. So
//   |y - v| <= 10.1u + 2^-76 <= 2^-49.6 =: E_rot   for every rotated output, any position < 2^24.
//
// Faithful rounding. Let v != 0 lie in the binade [2^e, 2^(e+1)) (or its negative), U =
// ulp_f32(v) = 2^(e-23) > 2^-24 |v|. If |y - v| <= U/4, y is within U/4 of that binade, whose
// floats are spaced U and include both ends, so the float nearest y is within U/2 of y, and
// |RN_f32(y) - v| <= U/2 + U/4 < U. So |y - v| <= 2^-26 |v| suffices. v = 0 only at pos 0, an
// anchor: y = +0 exactly. Rotated rows meet it when |v| >= E_rot 2^26 = 2^-23.6. A row whose min
// |y| over a pair is below kFixupThreshold = 2^-22 has that pair recomputed directly; otherwise
// |v| >= 2^-22 - E_rot. Direct values meet it when |v| >= 2^-51 (direct-inl.h).
// The fraction fixed up is about (4/pi) 2^-22 per pair (sin or cos near zero), ~1e-4 rows at
// d = 512; every pair of a huge base's low frequencies qualifies, and is then slower, not wrong.
// The same argument with the 16-bit formats' spacing (fixup_threshold, precise_fill.h):
//  - bfloat16 (8 bits): U > 2^-8 |v| above 2^-126, so |y - v| <= 2^-10 |v| suffices, which
//    rotated rows meet when |v| >= E_rot 2^10 = 2^-39.6: kFixupThresholdBF16 = 2^-39. Values
//    below 2^-126 (spacing 2^-133) are under the threshold, hence direct, as for float32.
//  - float16: U >= 2^-24 for every v (its subnormal spacing is the smallest), and E_rot <= 2^-26:
//    every rotated value is faithful as it is, so float16 rows need no fix-up at all.
//
// Attention factor. With a recipe the exact value is A v; A~ = RN_53(A) (frequencies.h) multiplies
// the anchors and the directly computed values, one more rounding each: S' = fl(A~ S) is within
// A (6u |sin th| + E_a) (1 + 2u) of A sin th, so the 8u of the rotation bound becomes 12u and
// |y - A v| <= A (14.1u + 2^-76) <= A 2^-49.3 =: A E_rot'; a direct value is within
// A (6u |v| + E_arg). Both are relative to A, so the faithful test above holds for A v as it did
// for v: rotated outputs need |v| >= E_rot' 2^26 = 2^-23.3, and the fix-up threshold becomes
// A~ kFixupThreshold (exact), on the scaled values: an output left alone has |y| >= A~ 2^-22,
// so |v| >= 2^-22 (1 - 2^-52) - E_rot'; direct values need |v| >= 2^-51 as before. Likewise
// bfloat16's threshold becomes A~ 2^-39 (|v| >= 2^-39.3 needed), and float16's spacing covers
// A E_rot' = A 2^-49.3 as long as A <= 2^23.3: beyond, float16 takes float32's threshold.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peverify/core/precise/precise_fill.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <algorithm>
#include <type_traits>

#include "hwy/highway.h"
#include "peverify/core/precise/direct-inl.h"
#include "peverify/core/precise/fill_loops-inl.h"
#include "peverify/core/precise/half_float_sinks-inl.h"
#include "peverify/core/precise/half_sinks-inl.h"
#include "peverify/core/precise/plan.h"
#include "peverify/core/precise/precise_fill.h"
#include "peverify/core/precise/rotate-inl.h"
#include "peverify/core/precise/row_shape.h"
#include "peverify/core/row_writer.h"
#include "peverify/encoding/format.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::precise::HWY_NAMESPACE {
namespace {

PlanCache& Cache() {
  static PlanCache cache;  // one per target: tables are built by this target's code
  return cache;
}

#if HWY_TARGET != HWY_SCALAR
// Calls f with the pairing as a type, std::integral_constant<Pairing, p>.
template <class F>
void WithPairing(Pairing p, const F& f) {
  switch (p) {
    case Pairing::kSinCos:
      return f(std::integral_constant<Pairing, Pairing::kSinCos>());
    case Pairing::kCosSin:
      return f(std::integral_constant<Pairing, Pairing::kCosSin>());
    case Pairing::kCosCos:
      return f(std::integral_constant<Pairing, Pairing::kCosCos>());
    case Pairing::kSinSin:
      return f(std::integral_constant<Pairing, Pairing::kSinSin>());
  }
}

// 16-bit rows of whole vectors of pairs, every layout; kFloatFirst: the float rotation
// (half_float_sinks-inl.h) with the double sinks for small values.
template <Dtype kOut, bool kNative, bool kFloatFirst>
void FillHalfWith(const Plan& plan, const TableSpec& spec, uint64_t count, uint16_t* out,
                  bool big) {
  const auto width = static_cast<size_t>(table_width(spec));
  const auto half = static_cast<size_t>(spec.d_model / 2);
  const double t = fixup_threshold(plan, kOut);
  const int16_t limit = float_rotation_limit(kOut, float_rotation_bound(plan, kOut));
  const auto run = [&](auto& sink) HWY_ATTR {
    using Sink = std::decay_t<decltype(sink)>;
    const bool aligned = reinterpret_cast<uintptr_t>(out) % Sink::kStreamAlignment == 0;
    FillTiledMaybeStreaming(plan, t, spec.start, count, 2 * width,
                            big && aligned && sink.CanStream(half), sink);
  };
  const RowShape shape = row_shape(spec.layout, spec.d_model / 2);
  if (shape.zipped) {
    return WithPairing(pairing_of(shape), [&](auto pairing) HWY_ATTR {
      if constexpr (kFloatFirst) {
        ZippedHalfFloatFirst<kOut, kNative, decltype(pairing)::value> sink(out, width, t, limit);
        run(sink);
      } else {
        ZippedHalf<kOut, kNative, decltype(pairing)::value> sink(out, width, t);
        run(sink);
      }
    });
  }
  const auto runs = [&](auto sin, auto cos) HWY_ATTR {
    if constexpr (kFloatFirst) {
      RunsHalfFloatFirst<kOut, kNative, decltype(sin)::value, decltype(cos)::value> sink(
          out, width, t, shape, limit);
      run(sink);
    } else {
      RunsHalf<kOut, kNative, decltype(sin)::value, decltype(cos)::value> sink(out, width, t,
                                                                               shape);
      run(sink);
    }
  };
  if (shape.sin_runs[0] < 0) return runs(std::false_type(), std::true_type());
  if (shape.cos_runs[0] < 0) return runs(std::true_type(), std::false_type());
  runs(std::true_type(), std::true_type());
}

// The float rotation wherever its bound holds for the plan's A (float_rotation_bound): twice
// the values per instruction of the double one, which it needs for a value in about 3200 (float16)
// or 25700 (bfloat16): (2/pi) 2^-11 and 2^-14 (float_rotation-inl.h). kNative: AVX512_BF16's
// VCVTNEPS2BF16 rounds the double rotation's bfloat16 values (the float rotation rounds by integer
// ops, float_rotation-inl.h).
template <Dtype kOut>
void FillHalf(const Plan& plan, const TableSpec& spec, uint64_t count, uint16_t* out, bool big) {
  const bool float_rotation = float_rotation_bound(plan, kOut) > 0;
  if constexpr (kOut == Dtype::kBFloat16) {
    if (HasNativeBF16()) {
      if (float_rotation) return FillHalfWith<kOut, true, true>(plan, spec, count, out, big);
      return FillHalfWith<kOut, true, false>(plan, spec, count, out, big);
    }
  }
  if (float_rotation) return FillHalfWith<kOut, false, true>(plan, spec, count, out, big);
  FillHalfWith<kOut, false, false>(plan, spec, count, out, big);
}

// float32 rows of whole vectors of pairs in a zipped layout.
void FillZippedF32(const Plan& plan, const TableSpec& spec, uint64_t count, float* out,
                   bool stream) {
  const auto width = static_cast<size_t>(table_width(spec));
  const double t = fixup_threshold(plan, Dtype::kFloat32);
  WithPairing(pairing_of(row_shape(spec.layout, spec.d_model / 2)), [&](auto pairing) HWY_ATTR {
    ZippedF32<decltype(pairing)::value> sink(out, width, t);
    FillTiledMaybeStreaming(plan, t, spec.start, count, 4 * width, stream, sink);
  });
}
#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace

void FillReference(const TableSpec& spec, uint64_t count, Dtype output, Conversion conversion,
                   void* out) {
  if (count == 0) return;
  const std::shared_ptr<const Plan> plan =
      Cache().get(spec, hn::Lanes(DF64()), kDoubleChunkPairs, BuildTable);
  const double threshold = fixup_threshold(*plan, output);
  DoubleRows sink(spec, plan->padded, threshold, output, conversion, out);
  FillWhole(*plan, threshold, spec.start, count, sink);
}

void FillPrecise(const TableSpec& spec, uint64_t count, Dtype output, Conversion conversion,
                 void* out) {
  if (count == 0) return;
  const size_t n = hn::Lanes(DF64());
  // 16-bit rows read the float table, float32 rows the double one (plan.h).
  const bool half_output = output == Dtype::kFloat16 || output == Dtype::kBFloat16;
  const std::shared_ptr<const Plan> plan = Cache().get(
      spec, n, half_output ? kTargetFloatChunkPairs : kTargetDoubleChunkPairs, BuildTable);
  const auto width = static_cast<size_t>(table_width(spec));
  const size_t row_bytes = width * element_size(output);
  const int half = spec.d_model / 2;
  // The vector sinks store whole vectors of pairs, so they need d/2 to be a multiple of N.
  const bool vectors = static_cast<size_t>(half) == plan->padded;
  const auto address = reinterpret_cast<uintptr_t>(out);
  const bool big = count * row_bytes >= kStreamBytes;
  const RowShape shape = row_shape(spec.layout, half);
  const double threshold = fixup_threshold(*plan, output);
#if HWY_TARGET != HWY_SCALAR
  if (vectors && output == Dtype::kFloat32 && shape.zipped) {
    FillZippedF32(*plan, spec, count, static_cast<float*>(out), big && address % (8 * n) == 0);
    return;
  }
  // The 16-bit sinks: float16 without a fix-up (A <= 2^23); bfloat16 rounding only values of at
  // least 2^-126 themselves (half_sinks-inl.h), which its fix-up catches while A >= 2^-87.
  const bool half_sink = output == Dtype::kFloat16 ? threshold == 0 : threshold >= 0x1p-126;
  if (vectors && conversion == Conversion::kNearestEven && half_sink) {
    if (output == Dtype::kFloat16) {
      FillHalf<Dtype::kFloat16>(*plan, spec, count, static_cast<uint16_t*>(out), big);
      return;
    }
    if (output == Dtype::kBFloat16) {
      FillHalf<Dtype::kBFloat16>(*plan, spec, count, static_cast<uint16_t*>(out), big);
      return;
    }
  }
#endif
  if (vectors && output == Dtype::kFloat32 && !shape.zipped) {
    SplitF32 sink(static_cast<float*>(out), width, threshold, shape);
    FillTiledMaybeStreaming(*plan, threshold, spec.start, count, row_bytes,
                            big && address % (4 * n) == 0, sink);
    return;
  }
  DoubleRows sink(spec, plan->padded, threshold, output, conversion, out);
  FillWhole(*plan, threshold, spec.start, count, sink);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::precise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pev::core::precise {

HWY_EXPORT(FillPrecise);
HWY_EXPORT(FillReference);

void fill(const TableSpec& spec, uint64_t count, Dtype output, Conversion conversion, void* out) {
  HWY_DYNAMIC_DISPATCH(FillPrecise)(spec, count, output, conversion, out);
}

void fill_reference(const TableSpec& spec, uint64_t count, Dtype output, Conversion conversion,
                    void* out) {
  HWY_DYNAMIC_DISPATCH(FillReference)(spec, count, output, conversion, out);
}

// Binade by binade from the top: inside one (patterns first + 1 .. last) the gaps are equal and
// the bound grows with |y_f|, so its last pattern decides for them all; its first pattern has the
// smaller gap below (the binade under it). The first binade that fails puts the limit just above
// the failing pattern: exact for the first pattern, conservative inside a binade.
int16_t float_rotation_limit(Dtype output, double bound) {
  const int mantissa_bits = output == Dtype::kFloat16 ? 10 : 7;
  const uint32_t top_exponent = output == Dtype::kFloat16 ? 30 : 254;  // below Inf's
  const auto value = [output](uint32_t m) { return decode(m, output); };
  // Pattern m (not the largest finite) keeps its value faithful.
  const auto faithful = [&](uint32_t m) {
    const double gap_below = m == 0 ? value(1) : value(m) - value(m - 1);  // exact
    const double most = value(m) + (value(m + 1) - value(m)) / 2;          // |y_f| rounding to m
    return gap_below > 2 * (bound + kFloatRotationRelative * most);
  };
  for (uint32_t e = top_exponent + 1; e-- > 0;) {
    const uint32_t first = e << mantissa_bits, last = first + (uint32_t{1} << mantissa_bits) - 1;
    // No y_f rounds to the largest finite value (|y_f| <= A (1 + 2^-21), float_rotation_bound's
    // range of A), nor to Inf: the top binade's check stops below them.
    if (!faithful(e == top_exponent ? last - 1 : last)) return static_cast<int16_t>(last + 1);
    if (!faithful(first)) return static_cast<int16_t>(first + 1);
  }
  return 0;
}

std::string compiled_targets() {
  std::string names;
  for (int64_t bits = HWY_TARGETS; bits != 0; bits &= bits - 1) {  // lower bits: better targets
    if (!names.empty()) names += " ";
    names += hwy::TargetName(bits & -bits);
  }
  return names;
}

}  // namespace pev::core::precise
#endif  // HWY_ONCE
