// The reference rotation: the formula in Boost.Multiprecision's mpfr_float, on a ladder of fixed
// precisions (Ziv's strategy), each rung with a proven bound that mpfr_can_round uses.
//
// Error bound of one rung at precision p (every variable of a rung has p bits; EXP(v) is MPFR's
// exponent, |v| < 2^EXP(v); each operator rounds once to nearest, et_off):
//   w~ = w (1 + e_w), |e_w| <= 2^(1-p) (1 + 2^-p): w at p + c_w bits (or the 384-bit cache when
//        p + c_w <= 384), error 2^-p (Frequencies::compute), then rounded to p bits.
//   A~ = A (1 + e_A), |e_A| <= 2^(1-p) (1 + 2^-p) likewise (Attention); 0 when A is a double.
//   a~ = pos * w~ rounded: |a~ - a| <= 2^(E_a - p) (2 (1 + 2^(2-p)) + 1/2) < 2^(E_a + 2 - p),
//        E_a = EXP(a~), pos exact (< 2^64 <= 2^p).
//   cos~ = cos(a~) rounded: |cos~ - cos a| <= 2^(E_a + 2 - p) + 2^(EXP(cos~) - p - 1)
//        <= 2^(M + 1 - p), M = max(E_a + 2, EXP(cos~)) (1-Lipschitz); sin likewise.
//   c~ = A~ cos~ rounded: |c~ - C| <= |A~ - A| |cos~| + |A| |cos~ - cos a| + ulp/2
//        <= 4.002 2^(E_A + M - p) + 2^(E_A + M - p - 1) < 2^(E_A + M + 3 - p) =: 2^e_c,
//        E_A = EXP(A~) (|A| <= |A~| (1 + 2^(2-p))). Angle 0 (position 0 or w_j = 0): c~ = A~, e_c =
//        E_A + 2 - p (none when A is a double), s~ = 0 exactly.
//   r~ = x c~ - y s~ with x, y doubles (exact at p >= 53 bits), three roundings:
//        |r~ - (x C - y S)| <= |x| 2^e_c + |y| 2^e_s + 2^(EXP(x) + EXP(c~) - p - 1)
//        + 2^(EXP(y) + EXP(s~) - p - 1) + 2^(EXP(r~) - p - 1) <= 5 2^K < 2^(K + 3),
//        K the largest term's exponent (terms of zero factors dropped; |x| < 2^EXP(x)),
//   so mpfr_can_round's err = EXP(r~) - K - 3. At position 0 with A a double, r~ = x A exactly
//   (106 <= p bits; it may be a tie), rounded with round_exact. Cancellation (x C ~ y S) lowers
//   EXP(r~) and is what climbs the ladder; exact cancellation needs tan(p w_j) = y/x rational,
//   which never happens for p > 0 (docs/mathematics.md §6.1).
#include <algorithm>
#include <boost/multiprecision/mpfr.hpp>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "peverify/oracle/correct_rounding.h"
#include "peverify/oracle/mpfr_var.h"
#include "peverify/oracle/rotation_engines.h"

namespace pev::oracle {
namespace {

namespace bmp = boost::multiprecision;
// et_off: each operator is one rounding, as the bound counts them.
template <unsigned kDigits10>
using Real = bmp::number<bmp::mpfr_float_backend<kDigits10>, bmp::et_off>;

template <class R>
mpfr_srcptr raw(const R& v) {
  return v.backend().data();
}

// The exponent of an error term, or "none" for a term that is exactly zero.
constexpr mpfr_exp_t kNone = std::numeric_limits<mpfr_exp_t>::min();

struct Context {
  const Frequencies& frequencies;
  const Attention& attention;
  Dtype target;
  uint64_t pos;
  int pair;
  // The angle is exactly 0: position 0, or a pair whose w_j is 0 (proportional's tail).
  bool zero_angle() const { return pos == 0 || frequencies.zero(pair); }
};

// C~ = A~ cos~ and S~ = A~ sin~ at one rung's precision, with their error exponents e_c, e_s.
template <class R>
struct RungValues {
  R c, s = 0;
  mpfr_exp_t e_c = kNone, e_s = kNone;
};

// The rung's C~ and S~; nullopt where cos~ or sin~ is 0 (cannot happen for an angle != 0).
template <unsigned kDigits10>
std::optional<RungValues<Real<kDigits10>>> rung_values(const Context& ctx) {
  using R = Real<kDigits10>;
  const mpfr_prec_t p = mpfr_get_prec(raw(R()));
  MpfrVar scratch(p);
  const auto from_mpfr = [](mpfr_srcptr v) { return R(bmp::mpfr_float_backend<kDigits10>(v)); };

  R attention;
  if (const auto exact = ctx.attention.exact()) {
    attention = *exact;
  } else if (p > Attention::kCachedPrecision - 2) {
    ctx.attention.compute(p + ctx.attention.log2_error_factor(), scratch);
    attention = from_mpfr(scratch);
  } else {
    attention = from_mpfr(ctx.attention.cached());
  }
  const mpfr_exp_t e_A = mpfr_get_exp(raw(attention));

  RungValues<R> v;
  if (ctx.zero_angle()) {  // cos 0 = 1 and sin 0 = 0 exactly
    v.c = attention;
    if (!ctx.attention.exact()) v.e_c = e_A + 2 - p;
    return v;
  }
  R w;
  const int c_w = ctx.frequencies.log2_error_factor();
  if (p + c_w > Frequencies::kCachedPrecision) {
    ctx.frequencies.compute(ctx.pair, p + c_w, scratch);
    w = from_mpfr(scratch);
  } else {
    w = from_mpfr(ctx.frequencies.cached(ctx.pair));
  }
  const R angle = R(ctx.pos) * w;
  const R cos_a = cos(angle), sin_a = sin(angle);
  if (cos_a == 0 || sin_a == 0) return std::nullopt;
  const mpfr_exp_t e_a = mpfr_get_exp(raw(angle));
  const auto error_of = [&](const R& x) {  // e_c: E_A + M + 3 - p
    return e_A + std::max<mpfr_exp_t>(e_a + 2, mpfr_get_exp(raw(x))) + 3 - p;
  };
  v.c = attention * cos_a;
  v.s = attention * sin_a;
  v.e_c = error_of(cos_a);
  v.e_s = error_of(sin_a);
  return v;
}

// x C~ - y S~ rounded to float64 and to the target where the rung's bound decides both;
// nullopt where it does not (climb). `exact_value`: position 0 with A a double, where x A - y 0 is
// exact at p >= 106 bits and may be a tie.
template <class R>
std::optional<RotatedElement> decide_element(const Context& ctx, const RungValues<R>& v,
                                             mpfr_prec_t p, double x, double y, bool exact_value) {
  const R xr = x, yr = y;
  const R r = xr * v.c - yr * v.s;
  // r~ is the exact value; x = 0 zeroes it at position 0 too, where S = 0.
  if (exact_value || (x == 0 && (y == 0 || ctx.zero_angle()))) {
    if (r == 0) return RotatedElement{0.0, 0.0};
    return RotatedElement{round_exact(raw(r), Dtype::kFloat64), round_exact(raw(r), ctx.target)};
  }
  if (r == 0) return std::nullopt;  // cancelled at this precision: climb
  mpfr_exp_t k = kNone;
  const auto term = [&k](mpfr_exp_t e) { k = std::max(k, e); };
  for (const auto& [value, factor, e_f] :
       {std::tuple{&xr, &v.c, v.e_c}, std::tuple{&yr, &v.s, v.e_s}}) {
    if (*value == 0 || *factor == 0) continue;  // the product is exactly zero, and so its error
    const mpfr_exp_t e_v = mpfr_get_exp(raw(*value));
    if (e_f != kNone) term(e_v + e_f);
    term(e_v + mpfr_get_exp(raw(*factor)) - p - 1);
  }
  term(mpfr_get_exp(raw(r)) - p - 1);
  const mpfr_exp_t err = mpfr_get_exp(raw(r)) - k - 3;
  const auto exact = round_if_decided(raw(r), err, Dtype::kFloat64);
  const auto rounded = round_if_decided(raw(r), err, ctx.target);
  if (!exact || !rounded) return std::nullopt;
  return RotatedElement{*exact, *rounded};
}

// One rung of the ladder: C~ and S~ at the type's precision, then every element not yet decided.
// Returns whether all are.
template <unsigned kDigits10>
bool decide_at_rung(const Context& ctx, const double* x, const double* y, int count,
                    RotatedElement* out, std::vector<char>& done) {
  using R = Real<kDigits10>;
  const mpfr_prec_t p = mpfr_get_prec(raw(R()));
  const std::optional<RungValues<R>> v = rung_values<kDigits10>(ctx);
  if (!v) return false;
  const bool exact_value = ctx.zero_angle() && ctx.attention.exact();
  bool all = true;
  for (int i = 0; i < count; ++i) {
    if (done[static_cast<size_t>(i)]) continue;
    if (const auto decided = decide_element(ctx, *v, p, x[i], y[i], exact_value)) {
      out[i] = *decided;
      done[static_cast<size_t>(i)] = 1;
    } else {
      all = false;
    }
  }
  return all;
}

}  // namespace

MpfrRotation::MpfrRotation(const TableSpec& table, Dtype target)
    : frequencies_(table), attention_(table), target_(target) {}

void MpfrRotation::rotate(uint64_t pos, int pair, const double* x, const double* y, int count,
                          RotatedElement* out) const {
  free_mpfr_caches_at_thread_exit();
  const Context ctx{frequencies_, attention_, target_, pos, pair};
  std::vector<char> done(static_cast<size_t>(count), 0);
  // About 134, 267, 533, 1065, 2128 and 4254 bits: the first covers the angle's 72 + 53 bits at
  // any position up to 2^53 with a float64 result's margin; each next one doubles it.
  if (decide_at_rung<40>(ctx, x, y, count, out, done) ||
      decide_at_rung<80>(ctx, x, y, count, out, done) ||
      decide_at_rung<160>(ctx, x, y, count, out, done) ||
      decide_at_rung<320>(ctx, x, y, count, out, done) ||
      decide_at_rung<640>(ctx, x, y, count, out, done) ||
      decide_at_rung<1280>(ctx, x, y, count, out, done))
    return;
  throw std::logic_error("oracle: rotation undecided at every rung for pos " + std::to_string(pos) +
                         ", pair " + std::to_string(pair));
}

}  // namespace pev::oracle
