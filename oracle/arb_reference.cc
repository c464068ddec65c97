#include "peverify/oracle/arb_reference.h"

#include <arb.h>
#include <arf.h>
#include <flint/fmpz.h>

#include <bit>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "peverify/encoding/format.h"
#include "peverify/oracle/arb_recipe.h"

namespace pev::oracle {
namespace {

// Owners for FLINT/Arb variables, so that an exception cannot leak them.
struct Arb {
  arb_t v;
  Arb() { arb_init(v); }
  ~Arb() { arb_clear(v); }
};
struct Arf {
  arf_t v;
  Arf() { arf_init(v); }
  ~Arf() { arf_clear(v); }
};
struct Fmpz {
  fmpz_t v;
  Fmpz() { fmpz_init(v); }
  ~Fmpz() { fmpz_clear(v); }
};

// x (finite, nonzero, |x| < 2^1100) rounded to nearest in format f, widened to double. The normal
// range rounds to f.precision significant bits; below 2^min_exponent the grid is fixed: integer
// multiples of the smallest subnormal 2^(min_exponent - precision + 1); a result beyond the
// largest finite value (an attention factor can scale values that far) is an infinity. Written by
// hand because Arb has no notion of a bounded exponent range.
double round_to_format(const arf_t x, const FormatTraits& f) {
  Arf y;
  if (arf_cmpabs_2exp_si(x, f.min_exponent) >= 0) {
    arf_set_round(y.v, x, f.precision, ARF_RND_NEAR);
  } else {
    const slong quantum_exp = f.min_exponent - f.precision + 1;
    Fmpz m;
    arf_mul_2exp_si(y.v, x, -quantum_exp);
    arf_get_fmpz(m.v, y.v, ARF_RND_NEAR);  // the multiple of the quantum; 0 underflows
    arf_set_fmpz(y.v, m.v);
    arf_mul_2exp_si(y.v, y.v, quantum_exp);
  }
  const bool negative = arf_sgn(x) < 0;
  if (arf_is_zero(y.v)) return negative ? -0.0 : 0.0;
  // y has at most 53 significant bits: ldexp is exact, or overflows to the infinity.
  Fmpz man, exp;
  arf_get_fmpz_2exp(man.v, exp.v, y.v);
  const double v =
      std::ldexp(static_cast<double>(fmpz_get_si(man.v)), static_cast<int>(fmpz_get_si(exp.v)));
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), 1 - f.min_exponent);
  return std::fabs(v) > largest ? std::copysign(INFINITY, v) : v;
}

// The common rounding of every point of the ball, if its two ends agree (compared as bit
// patterns, so that -0 and +0 differ).
std::optional<double> round_ball(const arb_t x, const FormatTraits& f) {
  // Wide balls cannot decide; this also keeps the endpoints far from any overflow.
  if (arb_contains_zero(x) || arb_rel_accuracy_bits(x) < f.precision + 2) return std::nullopt;
  Arf lo, hi;
  arb_get_interval_arf(lo.v, hi.v, x, 2 * arb_bits(x) + 64);  // rounded outwards: still encloses
  const double a = round_to_format(lo.v, f);
  const double b = round_to_format(hi.v, f);
  if (std::bit_cast<uint64_t>(a) != std::bit_cast<uint64_t>(b)) return std::nullopt;
  return a;
}

}  // namespace

ArbReference arb_reference(const TableSpec& spec, uint64_t pos, int pair, Dtype target) {
  ArbReference r;
  const FormatTraits f = traits_of(target);
  const FormatTraits f64 = traits_of(Dtype::kFloat64);
  Fmpz position;
  fmpz_set_ui(position.v, static_cast<ulong>(pos));  // exact for every 64-bit position

  Arb w, angle, s, c, attention;
  constexpr slong kMaxPrecision = slong{1} << 16;
  for (slong prec = 64 + 2 * static_cast<slong>(std::bit_width(pos)); prec <= kMaxPrecision;
       prec *= 2) {
    // Guard bits on w and the angle; Arb's radii track every error, so any choice is sound.
    arb_attention(spec, prec + 16, attention.v);
    if (pos != 0 && !arb_frequency(spec, pair, prec + 16, w.v)) continue;  // a branch open
    // Angle 0 (position 0, or a zero frequency): sin 0 = +0 and cos 0 = 1 exactly (the oracle's
    // convention), so the values are 0 and A.
    const bool zero_angle = pos == 0 || arb_is_zero(w.v);
    if (zero_angle) {
      arb_zero(s.v);
      arb_set(c.v, attention.v);
    } else {
      arb_mul_fmpz(angle.v, w.v, position.v, prec + 16);
      arb_sin_cos(s.v, c.v, angle.v, prec);
      arb_mul(s.v, s.v, attention.v, prec);
      arb_mul(c.v, c.v, attention.v, prec);
    }
    const auto sin_t = zero_angle ? std::optional<double>(0.0) : round_ball(s.v, f);
    const auto sin_d = zero_angle ? std::optional<double>(0.0) : round_ball(s.v, f64);
    const auto cos_t = round_ball(c.v, f), cos_d = round_ball(c.v, f64);
    if (sin_t && cos_t && sin_d && cos_d) {
      r.sin_value = *sin_t;
      r.cos_value = *cos_t;
      r.sin_bits = encode_exact(*sin_t, target);
      r.cos_bits = encode_exact(*cos_t, target);
      r.sin_f64 = *sin_d;
      r.cos_f64 = *cos_d;
      r.precision = prec;
      return r;
    }
  }
  throw std::runtime_error("arb_reference: undecided at 2^16 bits for pos " + std::to_string(pos) +
                           ", pair " + std::to_string(pair));
}

ArbRotated arb_rotation(const TableSpec& spec, uint64_t pos, int pair, double x, double y,
                        Dtype target) {
  if (x == 0 && (y == 0 || pos == 0)) return {};  // the exact zeros: +0
  const FormatTraits f = traits_of(target), f64 = traits_of(Dtype::kFloat64);
  Fmpz position;
  fmpz_set_ui(position.v, static_cast<ulong>(pos));
  Arb w, angle, s, c, attention, t, xb, yb;
  arb_set_d(xb.v, x);
  arb_set_d(yb.v, y);
  constexpr slong kMaxPrecision = slong{1} << 16;
  for (slong prec = 64 + 2 * static_cast<slong>(std::bit_width(pos)); prec <= kMaxPrecision;
       prec *= 2) {
    arb_attention(spec, prec + 16, attention.v);
    if (pos == 0) {  // sin 0 = 0 and cos 0 = 1 exactly
      arb_zero(s.v);
      arb_one(c.v);
    } else {
      if (!arb_frequency(spec, pair, prec + 16, w.v)) continue;
      if (x == 0 && arb_is_zero(w.v)) return {};  // angle 0 (a zero frequency): +0 as above
      arb_mul_fmpz(angle.v, w.v, position.v, prec + 16);
      arb_sin_cos(s.v, c.v, angle.v, prec);
    }
    // A (x cos a - y sin a): the same real as x (A cos a) - y (A sin a).
    arb_mul(c.v, c.v, xb.v, prec);
    arb_mul(s.v, s.v, yb.v, prec);
    arb_sub(t.v, c.v, s.v, prec);
    arb_mul(t.v, t.v, attention.v, prec);
    const auto exact = round_ball(t.v, f64), rounded = round_ball(t.v, f);
    if (exact && rounded) return {*exact, *rounded, static_cast<long>(prec)};
  }
  throw std::runtime_error("arb_rotation: undecided at 2^16 bits for pos " + std::to_string(pos) +
                           ", pair " + std::to_string(pair));
}

uint64_t arb_reference_bits(const TableSpec& spec, uint64_t pos, int pair, bool is_sin,
                            Dtype target) {
  const ArbReference r = arb_reference(spec, pos, pair, target);
  return is_sin ? r.sin_bits : r.cos_bits;
}

double arb_reference_value(const TableSpec& spec, uint64_t pos, int pair, bool is_sin) {
  const ArbReference r = arb_reference(spec, pos, pair, Dtype::kFloat64);
  return is_sin ? r.sin_f64 : r.cos_f64;
}

}  // namespace pev::oracle
