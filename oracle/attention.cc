#include "peverify/oracle/attention.h"

#include <gmp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "peverify/oracle/correct_rounding.h"

namespace pev::oracle {
namespace {

constexpr mpfr_prec_t kLastPrecision = mpfr_prec_t{1} << 16;

// Owner for a GMP integer.
struct Mpz {
  mpz_t v;
  Mpz() { mpz_init(v); }
  ~Mpz() { mpz_clear(v); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
};

// yarn's g(s, m) = 0.1 m ln s + 1 for s > 1 (0.1 is the real one tenth): t at `p` bits, g at
// its own precision. ln s rounds (s is exact), so do the product and the division by 10:
// t~ = t (1 + d), |d| <= 3.01 e; g~ = RN(t~ + 1) adds e |g|: |g~/g - 1| <= 3.01 |t| / |g| e + e
// (first order; e = 2^-min(p, prec(g))).
void mscale_of(double s, double m, mpfr_prec_t p, mpfr_ptr t, mpfr_ptr g) {
  mpfr_set_prec(t, p);
  mpfr_set_d(t, s, MPFR_RNDN);
  mpfr_log(t, t, MPFR_RNDN);
  mpfr_mul_d(t, t, m, MPFR_RNDN);
  mpfr_div_ui(t, t, 10, MPFR_RNDN);
  mpfr_add_ui(g, t, 1, MPFR_RNDN);
}

// 3.01 |t| / |g| + 1.01 for g(s, m), with |t| and |g| bounded by raising the precision until g's
// error (the same bound, absolute) leaves its magnitude clear of 0. g is never 0: that would
// make s = e^(-10/m), transcendental (Lindemann), while s is a double.
double mscale_error(double s, double m) {
  MpfrVar t(64), g(64);
  for (mpfr_prec_t p = 128; p <= kLastPrecision; p *= 2) {
    mpfr_set_prec(g, p);
    mscale_of(s, m, p, t, g);
    const double tm = std::fabs(mpfr_get_d(t, MPFR_RNDA)) * (1 + 0x1p-60);
    const double g_up = std::fabs(mpfr_get_d(g, MPFR_RNDA)),
                 g_down = std::fabs(mpfr_get_d(g, MPFR_RNDZ));
    const double error = std::ldexp(3.02 * tm + 1.02 * g_up, static_cast<int>(-p));
    if (g_down > 2 * error) return 3.01 * tm / (g_down - error) + 1.01;
  }
  throw std::logic_error("oracle: yarn's mscale undecided at 2^16 bits");
}

bool is_perfect_square(const Mpz& x, Mpz& root) {
  if (!mpz_perfect_square_p(x.v)) return false;
  mpz_sqrt(root.v, x.v);
  return true;
}

}  // namespace

std::optional<double> exact_longrope_attention(const RopeScaling& r) {
  // ln t / ln L0 is rational exactly when t = g^x and L0 = g^y for an integer g: writing
  // t = P/Q in lowest terms, t^c = L0^a forces Q = 1, and an integer t with t^c = L0^a is a power
  // of L0's primitive root g (the exponents of g's primes have gcd 1). Otherwise the ratio is
  // transcendental (Gelfond-Schneider) and so is A.
  const uint64_t l0 = r.original_max_position;
  if (l0 < 2) return std::nullopt;
  Mpz t, g, rest, numerator, denominator, a, b;
  if (r.max_position) {
    if (r.max_position % l0 != 0) return std::nullopt;
    mpz_set_ui(t.v, r.max_position / l0);
  } else {
    if (!(r.factor > 1) || r.factor != std::floor(r.factor)) return std::nullopt;
    mpz_set_d(t.v, r.factor);  // exact: an integer double
  }
  if (mpz_cmp_ui(t.v, 1) <= 0) return std::nullopt;
  unsigned long y = 1;
  mpz_set_ui(g.v, l0);
  for (unsigned long k = 63; k >= 2; --k) {
    mpz_set_ui(rest.v, l0);
    if (mpz_root(rest.v, rest.v, k)) {  // exact k-th root: the largest k gives the primitive root
      mpz_set(g.v, rest.v);
      y = k;
      break;
    }
  }
  unsigned long x = 0;
  while (mpz_divisible_p(t.v, g.v)) {
    mpz_divexact(t.v, t.v, g.v);
    ++x;
  }
  if (mpz_cmp_ui(t.v, 1) != 0) return std::nullopt;
  // A^2 = 1 + x/y = (x + y) / y; A is dyadic when both terms of the reduced fraction are squares
  // and the denominator's root is a power of 2.
  mpz_set_ui(numerator.v, x + y);
  mpz_set_ui(denominator.v, y);
  mpz_gcd(rest.v, numerator.v, denominator.v);
  mpz_divexact(numerator.v, numerator.v, rest.v);
  mpz_divexact(denominator.v, denominator.v, rest.v);
  if (!is_perfect_square(numerator, a) || !is_perfect_square(denominator, b)) return std::nullopt;
  if (mpz_popcount(b.v) != 1) return std::nullopt;
  // a < 2^11 (x + y < 2^22): the quotient is exact in double.
  return mpz_get_d(a.v) / mpz_get_d(b.v);
}

Attention::Attention(const TableSpec& spec) : spec_(spec), cache_(64) {
  if (auto err = validate(spec)) throw std::invalid_argument(*err);
  free_mpfr_caches_at_thread_exit();
  const RopeScaling& r = spec.rope;
  const double s = r.factor;
  if (r.attention_factor) {
    exact_ = *r.attention_factor;
  } else if (r.type == RopeType::kYarn) {
    // Hugging Face: g(s, mscale) / g(s, mscale_all_dim) when both are set and nonzero, else
    // g(s, 1); g(s, m) = 1 for s <= 1, and equal m's cancel exactly.
    const bool ratio = r.mscale && r.mscale_all_dim && *r.mscale != 0 && *r.mscale_all_dim != 0;
    if (s <= 1 || (ratio && *r.mscale == *r.mscale_all_dim)) {
      exact_ = 1.0;
    } else if (ratio) {
      mscale_ = *r.mscale;
      mscale_all_dim_ = *r.mscale_all_dim;
      // The quotient of two values with those errors, rounded.
      error_factor_ = mscale_error(s, mscale_) + mscale_error(s, *mscale_all_dim_) + 1;
    } else {
      error_factor_ = mscale_error(s, 1.0);
    }
  } else if (r.type == RopeType::kLongRope) {
    const bool from_lengths = r.max_position && r.original_max_position;
    const bool scaled = from_lengths ? r.max_position > r.original_max_position : s > 1;
    if (!scaled) {
      exact_ = 1.0;
    } else if (auto a = exact_longrope_attention(r)) {
      exact_ = *a;
    } else {
      // y = t - 1 (L - L0 is exact; one rounding), log1p(y) (y's error passes with a factor
      // y / ((1 + y) log1p(y)) <= 1, then its rounding), ln L0, the quotient, 1 + z (no
      // cancellation), sqrt (halves the error, then rounds): 1 + 1.01 + 1 + 1 + 1 = 5.01 before
      // the sqrt, 3.51 after it.
      error_factor_ = 3.51;
    }
  } else {
    exact_ = 1.0;
  }
  log2_error_factor_ = exact_ ? 0 : static_cast<int>(std::ceil(std::log2(1.01 * error_factor_)));
  compute(kCachedPrecision + log2_error_factor_, cache_);
}

void Attention::compute(mpfr_prec_t precision, mpfr_ptr out) const {
  if (exact_) {
    mpfr_set_prec(out, std::max<mpfr_prec_t>(precision, 64));
    mpfr_set_d(out, *exact_, MPFR_RNDN);  // exact
    return;
  }
  // Intermediates at P_int >= c_A + 64 keep every first-order term below 2^-64 relatively, where
  // the 1.01 in c_A covers the second-order ones; the result is rounded once to `precision`.
  const mpfr_prec_t p = std::max<mpfr_prec_t>(precision, log2_error_factor_ + 64);
  const RopeScaling& r = spec_.rope;
  MpfrVar t(p), g(p), u(p), h(p);
  mpfr_set_prec(out, precision);
  if (r.type == RopeType::kYarn) {
    if (!mscale_all_dim_) {  // g(s, m) itself: its last rounding is the result's
      mscale_of(r.factor, mscale_, p, t, out);
      return;
    }
    mscale_of(r.factor, mscale_, p, t, g);
    mscale_of(r.factor, *mscale_all_dim_, p, u, h);
    mpfr_div(out, g, h, MPFR_RNDN);
    return;
  }
  // longrope: sqrt(1 + log1p(t - 1) / ln L0).
  if (r.max_position && r.original_max_position) {
    mpfr_set_ui(t, static_cast<unsigned long>(r.max_position), MPFR_RNDN);
    mpfr_sub_ui(t, t, static_cast<unsigned long>(r.original_max_position), MPFR_RNDN);
    mpfr_div_ui(t, t, static_cast<unsigned long>(r.original_max_position), MPFR_RNDN);
  } else {
    mpfr_set_d(t, r.factor, MPFR_RNDN);
    mpfr_sub_ui(t, t, 1, MPFR_RNDN);
  }
  mpfr_log1p(t, t, MPFR_RNDN);
  mpfr_set_ui(g, static_cast<unsigned long>(r.original_max_position), MPFR_RNDN);
  mpfr_log(g, g, MPFR_RNDN);
  mpfr_div(t, t, g, MPFR_RNDN);
  mpfr_add_ui(t, t, 1, MPFR_RNDN);
  mpfr_sqrt(out, t, MPFR_RNDN);
}

double Attention::rounded(Dtype target) const {
  if (exact_) {
    MpfrVar a(64);
    mpfr_set_d(a, *exact_, MPFR_RNDN);
    return round_exact(a, target);
  }
  // Ziv: at P = p + c_A bits |A~ - A| <= |A| 2^-p < 2^(EXP(A~) - (p - 1)). A is not a dyadic
  // rational here (transcendental, a quadratic irrational or a rational like 4/3), so never a
  // breakpoint of any format, and some p decides.
  MpfrVar a(64);
  for (mpfr_prec_t p = 64; p <= kLastPrecision; p *= 2) {
    compute(p + log2_error_factor_, a);
    if (auto v = round_if_decided(a, p - 1, target)) return *v;
  }
  throw std::logic_error("oracle: the attention factor's rounding undecided at 2^16 bits");
}

}  // namespace pev::oracle
