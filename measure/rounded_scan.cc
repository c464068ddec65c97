#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peverify/measure/rounded_scan.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Re-included once per target, after foreach_target.h.
#include <bit>
#include <cmath>
#include <cstdint>

#include "hwy/highway.h"
#include "peverify/measure/rounded_scan.h"

HWY_BEFORE_NAMESPACE();
namespace pev::measure::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void ScanRounded(const double* got, const double* rounded, const double* exact, size_t n,
                 RoundedScan& scan) {
  const hn::ScalableTag<double> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const size_t lanes = hn::Lanes(d);
  auto diff = hn::Zero(du);
  auto max = hn::Set(d, scan.max_abs);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto g = hn::LoadU(d, got + i);
    diff = hn::Or(diff, hn::Xor(hn::BitCast(du, g), hn::BitCast(du, hn::LoadU(d, rounded + i))));
    max = hn::Max(max, hn::Abs(hn::Sub(g, hn::LoadU(d, exact + i))));
  }
  double m = hn::GetLane(hn::MaxOfLanes(d, max));
  uint64_t bits = hn::GetLane(hn::MaxOfLanes(du, diff));
  for (; i < n; ++i) {
    bits |= std::bit_cast<uint64_t>(got[i]) ^ std::bit_cast<uint64_t>(rounded[i]);
    m = std::fmax(m, std::fabs(got[i] - exact[i]));
  }
  scan.all_rounded = scan.all_rounded && bits == 0;
  scan.max_abs = m;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::measure::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pev::measure {
HWY_EXPORT(ScanRounded);

void scan_rounded(const double* got, const double* rounded, const double* exact, size_t n,
                  RoundedScan& scan) {
  HWY_DYNAMIC_DISPATCH(ScanRounded)(got, rounded, exact, n, scan);
}

}  // namespace pev::measure
#endif  // HWY_ONCE
