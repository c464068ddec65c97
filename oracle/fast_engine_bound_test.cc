// The fast engine's error bound (fast_engine.md) checked where it can fail: the kernel's
// double-double sin and cos against MPFR at 600 bits, on random elements over the whole domain
// and on positions that put the angle a hair from a multiple of pi/2.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "peverify/oracle/attention.h"
#include "peverify/oracle/fast_engine_kernel.h"
#include "peverify/oracle/fast_engine_testutil.h"
#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/recipe_testutil.h"

namespace pev::oracle {
namespace {

// What the engine stores for a pair: t = w 2/pi split into three doubles (fast_engine.md, R0).
struct Words {
  double t0, t1, t2;
};

Words words_of(const Frequencies& f, int pair) {
  mpfr_t t, pi;
  mpfr_inits2(448, t, pi, static_cast<mpfr_ptr>(nullptr));
  mpfr_const_pi(pi, MPFR_RNDN);
  mpfr_ui_div(pi, 2, pi, MPFR_RNDN);
  mpfr_mul(t, f.cached(pair), pi, MPFR_RNDN);
  double w[3];
  for (double& x : w) {
    x = mpfr_get_d(t, MPFR_RNDN);
    mpfr_sub_d(t, t, x, MPFR_RNDN);
  }
  mpfr_clears(t, pi, static_cast<mpfr_ptr>(nullptr));
  return {w[0], w[1], w[2]};
}

struct Worst {
  double error_over_bound = 0;   // must stay below 1
  double log2_relative = -1100;  // the kernel's largest relative error seen
  std::string where;
  int elements = 0;
};

// Checks one element's sin and cos (times the attention factor when one is given) against MPFR at
// 600 bits (error <= 2^-500 here). `rotated` > 0: the element as a rotated row computes it, from
// the kernel's values at pos - rotated and at rotated (fast_engine.md, N).
void check(const TableSpec& spec, const Frequencies& f, int pair, uint64_t pos, Worst& worst,
           const Attention* attention = nullptr, int rotated = 0) {
  const Words w = words_of(f, pair);
  double a_hi = 1, a_lo = 0;
  mpfr_t angle, s, c, diff, a;
  mpfr_inits2(600, angle, s, c, diff, a, static_cast<mpfr_ptr>(nullptr));
  if (attention) {  // the engine's double-double of A (fast_engine.cc)
    a_hi = mpfr_get_d(attention->cached(), MPFR_RNDN);
    mpfr_sub_d(diff, attention->cached(), a_hi, MPFR_RNDN);
    a_lo = mpfr_get_d(diff, MPFR_RNDN);
  }
  const fast::Detail got =
      rotated > 0
          ? fast::evaluate_rotated_detail(static_cast<double>(pos - static_cast<uint64_t>(rotated)),
                                          rotated, w.t0, w.t1, w.t2, a_hi, a_lo)
          : fast::evaluate_detail(static_cast<double>(pos), w.t0, w.t1, w.t2, a_hi, a_lo);
  f.compute(pair, 600, angle);
  mpfr_mul_ui(angle, angle, static_cast<unsigned long>(pos), MPFR_RNDN);
  mpfr_sin_cos(s, c, angle, MPFR_RNDN);
  if (attention) {
    attention->compute(600, a);
    mpfr_mul(s, s, a, MPFR_RNDN);
    mpfr_mul(c, c, a, MPFR_RNDN);
  }
  const auto one = [&](const char* what, mpfr_srcptr exact, double hi, double lo, double bound) {
    mpfr_sub_d(diff, exact, hi, MPFR_RNDN);
    mpfr_sub_d(diff, diff, lo, MPFR_RNDN);
    const double error = std::fabs(mpfr_get_d(diff, MPFR_RNDU));
    const double ratio = error / bound;
    const std::string where = fmt::format(
        "d={} base={:a} pair={} pos={} rotated={} {}: hi {:a} lo {:a} error {:a} "
        "bound {:a}",
        spec.d_model, spec.base, pair, pos, rotated, what, hi, lo, error, bound);
    EXPECT_LE(error, bound) << where;
    if (ratio > worst.error_over_bound) {
      worst.error_over_bound = ratio;
      worst.where = where;
    }
    if (error > 0)
      worst.log2_relative = std::max(worst.log2_relative, std::log2(error / std::fabs(hi)));
  };
  one("sin", s, got.sin_hi, got.sin_lo, got.sin_bound);
  one("cos", c, got.cos_hi, got.cos_lo, got.cos_bound);
  ++worst.elements;
  mpfr_clears(angle, s, c, diff, a, static_cast<mpfr_ptr>(nullptr));
}

void report(const Worst& w) {
  fmt::print("{} elements: largest error/bound {:.3g}, largest relative error 2^{:.1f}\n  at {}\n",
             w.elements, w.error_over_bound, w.log2_relative, w.where);
  testing::Test::RecordProperty("max_error_over_bound", std::to_string(w.error_over_bound));
}

double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

// A plain table of random d (2 .. 4096), base (2 .. 2^41, log-uniform) and schedule.
TableSpec random_spec(std::mt19937_64& rng) {
  TableSpec spec;
  spec.d_model = 2 * static_cast<int>(1 + rng() % 2048);
  spec.base = std::exp2(1.0 + 40.0 * unit(rng));
  spec.schedule = rng() % 2 && spec.d_model >= 4 ? Schedule::kT2T : Schedule::kPaper;
  return spec;
}

int random_pair(std::mt19937_64& rng, const TableSpec& spec) {
  return static_cast<int>(rng() % static_cast<uint64_t>(spec.d_model / 2));
}

TEST(FastEngineBound, HoldsOnRandomElements) {
  std::mt19937_64 rng(4242);
  Worst worst;
  for (int s = 0; s < 200; ++s) {
    const TableSpec spec = random_spec(rng);
    const Frequencies f(spec);
    for (int i = 0; i < 60; ++i) {
      const int pair = random_pair(rng, spec);
      const uint64_t pos = 1 + static_cast<uint64_t>(std::exp2(53.0 * unit(rng)) - 1.0);
      check(spec, f, pair, pos, worst);
    }
  }
  report(worst);
}

// Recipe tables: the recipe's frequencies and the product by the attention factor A (section A),
// on random elements and next to multiples of pi/2 (position 1 .. 2^40).
TEST(FastEngineBound, HoldsWithRecipesAndAttentionFactors) {
  std::mt19937_64 rng(4343);
  Worst worst;
  for (const TableSpec& spec : recipes::random_recipes(31, 70)) {
    const Frequencies f(spec);
    const Attention a(spec);
    for (int i = 0; i < 40; ++i) {
      const int pair = static_cast<int>(rng() % static_cast<uint64_t>(spec.d_model / 2));
      const uint64_t pos = 1 + static_cast<uint64_t>(std::exp2(40.0 * (rng() >> 11) * 0x1p-53));
      check(spec, f, pair, pos, worst, &a);
    }
    // Nearest integer multiples of the half-turn for pair 0 (w ~ 1): |pos w - k pi/2| small.
    for (const uint64_t pos : {uint64_t{11}, uint64_t{355}, uint64_t{103993}, uint64_t{312689},
                               uint64_t{833719}, uint64_t{1146408}})
      check(spec, f, 0, pos, worst, &a);
  }
  report(worst);
}

// pos p with p w close to a multiple of pi/2: the convergents of the continued fraction of
// pi/(2w) for w = 1 and w = 10000^(-2/512). The reduced angle is then as small as 2^-55, where
// the reduction's error is largest relative to the value.
TEST(FastEngineBound, HoldsNextToMultiplesOfHalfPi) {
  Worst worst;
  for (const int pair : {0, 1}) {
    TableSpec spec;
    spec.d_model = 512;
    const Frequencies f(spec);
    for (const uint64_t p : fastcheck::half_pi_convergents(spec, pair))
      for (const uint64_t delta : {0, 1}) check(spec, f, pair, p + delta, worst);
  }
  report(worst);
}

// Rows rotated from an anchor row (section N): random elements of plain tables and of recipes with
// their attention factors, every offset 1 .. 7, and positions whose angle lies next to a multiple
// of pi/2, where the cosine's sum cancels and the value is tiny against the absolute bound.
TEST(FastEngineBound, RotatedRowsStayWithinTheirBound) {
  std::mt19937_64 rng(4444);
  Worst worst;
  // Random elements at positions j .. j + 2^53 (plain tables) or 2^40 (recipes), offsets j 1 .. 7.
  const auto random_elements = [&](const TableSpec& spec, const Attention* a, double bits) {
    const Frequencies f(spec);
    for (int i = 0; i < 40; ++i) {
      const int pair = random_pair(rng, spec);
      const int j = 1 + static_cast<int>(rng() % 7);
      const uint64_t pos =
          static_cast<uint64_t>(j) + static_cast<uint64_t>(std::exp2(bits * unit(rng)));
      check(spec, f, pair, pos, worst, a, j);
    }
  };
  for (int s = 0; s < 100; ++s) random_elements(random_spec(rng), nullptr, 53);
  for (const TableSpec& spec : recipes::random_recipes(32, 40)) {
    const Attention a(spec);
    random_elements(spec, &a, 40);
  }
  TableSpec spec;  // w_0 = 1: positions next to multiples of pi/2, up to 2^53
  spec.d_model = 512;
  const Frequencies f(spec);
  for (const uint64_t pos : fastcheck::half_pi_convergents(spec, 0))
    for (int j = 1; j < 8; ++j)
      if (pos > static_cast<uint64_t>(j)) check(spec, f, 0, pos, worst, nullptr, j);
  report(worst);
  EXPECT_GT(worst.elements, 5000);
}

// The constants of the kernel and the sin/cos table, against MPFR.
TEST(FastEngineBound, ConstantsAndTableAreWithinTheirStatedErrors) {
  mpfr_t x, err;
  mpfr_inits2(300, x, err, static_cast<mpfr_ptr>(nullptr));
  const auto log2_relative_error = [&](double hi, double lo) {  // log2 |x - hi - lo| / |x|
    mpfr_sub_d(err, x, hi, MPFR_RNDN);
    mpfr_sub_d(err, err, lo, MPFR_RNDN);
    mpfr_div(err, err, x, MPFR_RNDN);
    return mpfr_zero_p(err) ? -1000.0 : std::log2(std::fabs(mpfr_get_d(err, MPFR_RNDN)));
  };
  mpfr_const_pi(x, MPFR_RNDN);
  mpfr_div_2ui(x, x, 1, MPFR_RNDN);
  EXPECT_LT(log2_relative_error(fast::kHalfPiHi, fast::kHalfPiLo), -108.6);
  mpfr_set_si(x, -1, MPFR_RNDN);
  mpfr_div_ui(x, x, 6, MPFR_RNDN);
  EXPECT_LT(log2_relative_error(fast::kMinusSixthHi, fast::kMinusSixthLo), -106.0);
  const double* table = fast::sincos_table();
  for (int j = 1; j < fast::kTableEntries; ++j) {
    for (const bool is_sin : {true, false}) {
      mpfr_const_pi(x, MPFR_RNDN);
      mpfr_mul_si(x, x, j, MPFR_RNDN);
      mpfr_div_2ui(x, x, 10, MPFR_RNDN);  // j/512 quarter turns
      is_sin ? mpfr_sin(x, x, MPFR_RNDN) : mpfr_cos(x, x, MPFR_RNDN);
      const int at = 4 * j + (is_sin ? 0 : 2);
      ASSERT_LT(log2_relative_error(table[at], table[at + 1]), -105.9) << j << " " << is_sin;
    }
  }
  EXPECT_EQ(table[0], 0.0);
  EXPECT_EQ(table[1], 0.0);
  EXPECT_EQ(table[2], 1.0);
  EXPECT_EQ(table[3], 0.0);
  mpfr_clears(x, err, static_cast<mpfr_ptr>(nullptr));
}

}  // namespace
}  // namespace pev::oracle
