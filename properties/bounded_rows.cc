// bounded's per-row scans in SIMD lanes (bounded_rows.h), compiled once per target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peverify/properties/bounded_rows.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Re-included once per target, after foreach_target.h.
#include <algorithm>
#include <cmath>

#include "hwy/highway.h"
#include "peverify/properties/bounded_rows.h"

HWY_BEFORE_NAMESPACE();
namespace pev::properties::bounded_rows::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

ValueScan ScanValues(const double* HWY_RESTRICT row, size_t width) {
  const hn::ScalableTag<double> d;
  const size_t lanes = hn::Lanes(d);
  auto largest = hn::Zero(d);
  auto finite = hn::Eq(largest, largest);
  size_t i = 0;
  for (; i + lanes <= width; i += lanes) {
    const auto a = hn::Abs(hn::LoadU(d, row + i));
    finite = hn::And(finite, hn::Le(a, hn::Set(d, 1e300)));  // false for NaN and Inf
    largest = hn::IfThenElse(hn::Gt(a, largest), a, largest);
  }
  ValueScan scan;
  scan.finite = hn::AllTrue(d, finite);
  scan.max_abs = hn::GetLane(hn::MaxOfLanes(d, largest));  // NaN never entered it
  for (; i < width; ++i) {
    const double a = std::fabs(row[i]);
    scan.finite = scan.finite && a <= 1e300;
    scan.max_abs = a > scan.max_abs ? a : scan.max_abs;
  }
  return scan;
}

int UnsettledPairs(const IdentityRowInput& in, int* HWY_RESTRICT unsettled) {
  const hn::ScalableTag<double> d;
  const hn::Rebind<int32_t, decltype(d)> d32;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t lanes = hn::Lanes(d), pairs = static_cast<size_t>(in.pairs);
  const auto pos = hn::Set(d, in.pos), two_cu = hn::Set(d, in.two_cu), att2 = hn::Set(d, in.att2),
             threshold = hn::Set(d, in.threshold);
  int n = 0;
  size_t k = 0;
  for (; k + lanes <= pairs; k += lanes) {
    const auto s = hn::GatherIndex(d, in.row, hn::PromoteTo(di, hn::LoadU(d32, in.sin_col + k)));
    const auto c = hn::GatherIndex(d, in.row, hn::PromoteTo(di, hn::LoadU(d32, in.cos_col + k)));
    const auto angle = hn::Mul(pos, hn::LoadU(d, in.rate + k));
    const auto ss = hn::Add(hn::Mul(s, s), hn::Mul(c, c));
    const auto low = hn::Mul(two_cu, hn::Add(ss, hn::Mul(angle, hn::Add(hn::Abs(s), hn::Abs(c)))));
    // Settled: false for NaN, which the scalar check then names.
    const auto settled = hn::Le(hn::Abs(hn::Sub(ss, att2)), hn::Mul(low, threshold));
    if (HWY_LIKELY(hn::AllTrue(d, settled))) continue;
    uint8_t bits[8] = {};
    hn::StoreMaskBits(d, hn::Not(settled), bits);
    for (size_t lane = 0; lane < lanes; ++lane)
      if ((bits[lane / 8] >> (lane % 8)) & 1) unsettled[n++] = static_cast<int>(k + lane);
  }
  for (; k < pairs; ++k) {  // the same test in scalar code for the last pairs
    const double s = in.row[in.sin_col[k]], c = in.row[in.cos_col[k]];
    const double angle = in.pos * in.rate[k];
    const double ss = s * s + c * c;
    const double low = in.two_cu * (ss + angle * (std::fabs(s) + std::fabs(c)));
    if (!(std::fabs(ss - in.att2) <= low * in.threshold)) unsettled[n++] = static_cast<int>(k);
  }
  return n;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::properties::bounded_rows::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pev::properties::bounded_rows {
HWY_EXPORT(ScanValues);
HWY_EXPORT(UnsettledPairs);

ValueScan scan_values(const double* row, size_t width) {
  return HWY_DYNAMIC_DISPATCH(ScanValues)(row, width);
}

int unsettled_pairs(const IdentityRowInput& in, int* unsettled) {
  return HWY_DYNAMIC_DISPATCH(UnsettledPairs)(in, unsettled);
}

}  // namespace pev::properties::bounded_rows
#endif  // HWY_ONCE
