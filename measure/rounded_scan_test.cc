// The one-pass check of elements expected to be their correctly rounded values
// (measure/rounded_scan.h): every length (whole vectors and the scalar tail), every SIMD target.
#include "peverify/measure/rounded_scan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "hwy/targets.h"

namespace pev::measure {
namespace {

struct Elements {
  std::vector<double> got, rounded, exact;
  explicit Elements(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      exact.push_back(0.1 * static_cast<double>(i) - 0.3);
      rounded.push_back(static_cast<float>(exact.back()));
    }
    got = rounded;
  }
  RoundedScan scan(double max_so_far = 0) const {
    RoundedScan s;
    s.max_abs = max_so_far;
    scan_rounded(got.data(), rounded.data(), exact.data(), got.size(), s);
    return s;
  }
  double max_abs() const {
    double m = 0;
    for (size_t i = 0; i < got.size(); ++i) m = std::max(m, std::fabs(got[i] - exact[i]));
    return m;
  }
};

TEST(RoundedScan, FindsEveryDifferenceAndTheMaxOnEveryTarget) {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (size_t n = 1; n <= 19; ++n) {
      SCOPED_TRACE(n);
      const Elements clean(n);
      EXPECT_TRUE(clean.scan().all_rounded);
      EXPECT_EQ(clean.scan().max_abs, clean.max_abs());
      EXPECT_EQ(clean.scan(1.0).max_abs, 1.0);  // the running maximum is kept
      for (size_t at = 0; at < n; ++at) {
        Elements e(n);
        e.got[at] = std::nextafter(e.got[at], 2.0);  // one ulp of double away
        EXPECT_FALSE(e.scan().all_rounded) << at;
        Elements zero(n);
        zero.rounded[at] = 0.0, zero.got[at] = -0.0;  // a sign is a difference
        EXPECT_FALSE(zero.scan().all_rounded) << at;
        Elements overflow(n);
        overflow.got[at] = overflow.rounded[at] = std::numeric_limits<double>::infinity();
        EXPECT_TRUE(overflow.scan().all_rounded) << at;
        EXPECT_TRUE(std::isinf(overflow.scan().max_abs)) << at;  // the caller's cue to look
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace pev::measure
