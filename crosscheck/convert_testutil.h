// What the conversions must give, as the oracle decides it: shared by convert_test (a dense
// sample) and convert_exhaustive_test (every float). Header-only, so each test is one source.
#pragma once

#include <fmt/format.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/encoding/spec.h"
#include "peverify/oracle/correct_rounding.h"

namespace pev::core::testutil {

// The float16 or bfloat16 pattern of a representable value (finite or Inf).
inline uint16_t encode(double representable, Dtype format) {
  return static_cast<uint16_t>(encode_exact(representable, format));
}

// A NaN with the quiet bit set (float16: 0x0200, bfloat16: 0x0040).
inline bool is_quiet_nan(uint16_t bits, Dtype format) {
  const uint16_t exponent = format == Dtype::kFloat16 ? 0x7c00 : 0x7f80;
  const uint16_t quiet = format == Dtype::kFloat16 ? 0x0200 : 0x0040;
  return (bits & exponent) == exponent && (bits & quiet);
}

// The round-to-nearest-even bit pattern of a double in float16 or bfloat16, from the oracle's
// rounding test (pev::oracle::round_if_decided) on an exact MPFR copy with a tight error bound.
// The oracle refuses to decide breakpoints, so for those the neighbours come from the oracle on
// copies nudged by 2^-100 relative: equal neighbours mean x is representable, different ones that
// x is a midpoint, which goes to the neighbour with the even significand. A result beyond the
// format's largest finite value is Inf. One per thread: it owns MPFR scratch.
class OracleRounding {
 public:
  OracleRounding() {
    mpfr_init2(exact_, 64);    // holds any double exactly
    mpfr_init2(nudged_, 192);  // x +- 2^(e-100), exactly
    mpfr_init2(nudge_, 2);
  }
  ~OracleRounding() {
    mpfr_clear(exact_);
    mpfr_clear(nudged_);
    mpfr_clear(nudge_);
  }
  OracleRounding(const OracleRounding&) = delete;
  OracleRounding& operator=(const OracleRounding&) = delete;

  // x must not be NaN (see is_quiet_nan). Aborts if the oracle cannot decide a nudged copy.
  uint16_t expected(double x, Dtype format) {
    if (std::isinf(x) || x == 0.0) return encode(x, format);
    mpfr_set_d(exact_, x, MPFR_RNDN);  // exact
    double value;
    if (const auto r = oracle::round_if_decided(exact_, kTightErr, format)) {
      value = *r;
    } else {  // x is a breakpoint: representable, or a midpoint
      const double below = neighbour(std::fabs(x), false, format);
      const double above = neighbour(std::fabs(x), true, format);
      const bool odd_below = encode(below, format) & 1;
      value = std::copysign(below != above && odd_below ? above : below, x);
    }
    const double largest = decode(format == Dtype::kFloat16 ? 0x7bff : 0x7f7f, format);
    if (std::fabs(value) > largest) {
      value = std::copysign(std::numeric_limits<double>::infinity(), x);
    }
    return encode(value, format);
  }

 private:
  // Exact copies: the bound only has to leave room for nothing. Nudges of 2^-100 relative are
  // judged with a bound far below them.
  static constexpr mpfr_exp_t kTightErr = 62;
  static constexpr mpfr_exp_t kNudge = 100;
  static constexpr mpfr_exp_t kNudgedErr = 120;

  // What the oracle rounds a value just below or just above a > 0 to.
  double neighbour(double a, bool up, Dtype format) {
    mpfr_set_d(nudged_, a, MPFR_RNDN);
    mpfr_set_ui_2exp(nudge_, 1, mpfr_get_exp(nudged_) - kNudge, MPFR_RNDN);
    if (up) {
      mpfr_add(nudged_, nudged_, nudge_, MPFR_RNDN);  // exact: the span is < 192 bits
    } else {
      mpfr_sub(nudged_, nudged_, nudge_, MPFR_RNDN);
    }
    const auto r = oracle::round_if_decided(nudged_, kNudgedErr, format);
    if (!r) {
      fmt::print(stderr, "oracle undecided next to {:a}\n", a);
      std::abort();
    }
    return *r;
  }

  mpfr_t exact_, nudged_, nudge_;
};

// "0x1.ffep+15 (0x477ff000)": a float as %a and its bits, for failure messages.
inline std::string describe(float x) {
  return fmt::format("{:a} (0x{:08x})", static_cast<double>(x), std::bit_cast<uint32_t>(x));
}

inline std::string describe(double x) { return fmt::format("{:a}", x); }

// Runs body(begin, end) over [0, n) in one contiguous block per hardware thread (the oracle is
// thread-safe when MPFR is built with thread-local caches; otherwise one thread).
inline void parallel_for(size_t n, const std::function<void(size_t, size_t)>& body) {
  size_t threads = mpfr_buildopt_tls_p() ? std::max(1u, std::thread::hardware_concurrency()) : 1;
  threads = std::min(threads, std::max<size_t>(n, 1));
  const size_t block = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) {
    const size_t begin = std::min(n, t * block);
    pool.emplace_back(body, begin, std::min(n, begin + block));
  }
  for (auto& thread : pool) thread.join();
}

}  // namespace pev::core::testutil
