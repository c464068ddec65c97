// The fast engine's rotation: x C - y S in double-double from the fast engine's double-double C
// and S (fast::evaluate_detail, with their bounds), and the rounding test of fast_engine.md (T1,
// T2). Scalar: the sin and cos of a (position, pair) serve every head, so the products are cheap.
//
// Error bound (u = 2^-53, RN to nearest even, -ffp-contract=off; c = c_h + c_l with |c - C| <=
// beta_c and |c_l| <= 2u |c_h|, s likewise; x, y doubles, exact). With Sigma = |x c_h| + |y s_h|:
//   p + e = x c_h and p' + e' = y s_h exactly (TwoProd, std::fma), |e| <= u |p|.
//   q = RN(x c_l): |q - x c_l| <= 2u^2 |x c_h|; q' likewise: 2u^2 Sigma in all.
//   h + l = p - p' exactly (TwoSum), |l| <= u (|p| + |p'|).
//   m = RN(e - e'): u^2 (1 + u) Sigma.  n = RN(q - q'): 2u^2 (1 + u) Sigma.
//   RN(m + n): |m + n| <= 3u (1 + u)^2 Sigma, so 3u^2 (1 + u)^2 Sigma.
//   t = RN(l + RN(m + n)): 4u^2 (1 + u)^3 Sigma.  v_h + v_l = h + t exactly (TwoSum).
//   So |v_h + v_l - (x c - y s)| <= 12u^2 (1 + u)^3 Sigma < 2^-102.4 Sigma, and
//   |v_h + v_l - (x C - y S)| <= |x| beta_c + |y| beta_s + 2^-102.4 Sigma + 2^-1070,
// the last term for underflow: x, y, c_h, s_h are each 0 or in [2^-300, 2^300] (else the element
// goes to MPFR), so products and their TwoProd errors stay normal, and only q, q', m, n and the
// sums can underflow, each by <= 2^-1075. The code computes E = |x| beta_c + |y| beta_s +
// 2^-100 (|p| + |p'|) + 2^-1000 (>= 2x the underflow and 5x the arithmetic terms) in six
// roundings, then E' = E (1 + 2^-40) + 2^-52 |v_l| (two more): E' (1 - u) >= the bound + u |v_l|,
// which covers the rounding of v_l -+ E' in T1. Decided in float64 when v_h + (v_l -+ E') both
// round to v_h; in the target when v_h is also not one of its midpoints (T2). v_h = 0 never
// passes (E' > 0): the exact zeros are x = y = 0, and x = 0 at position 0 (S = 0).
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

#include "peverify/encoding/format.h"
#include "peverify/oracle/rotation_engines.h"

namespace pev::oracle {
namespace {

std::pair<double, double> two_prod(double a, double b) {
  const double p = a * b;
  return {p, std::fma(a, b, -p)};
}

std::pair<double, double> two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// 0, or a magnitude whose products and their errors stay in double's normal range.
bool in_range(double v) {
  const double a = std::fabs(v);
  return a == 0 || (a >= 0x1p-300 && a <= 0x1p300);
}

bool usable(const BoundedDD& v) {
  return in_range(v.hi) && std::fabs(v.lo) <= 0x1p-52 * std::fabs(v.hi) && v.bound >= 0 &&
         v.bound <= 0x1p300;
}

}  // namespace

namespace {

// 2^e for a normal exponent, from its bits (ldexp is a library call on every element).
double power_of_two(int e) {
  if (e < -1022 || e > 1023) return std::ldexp(1.0, e);
  return std::bit_cast<double>(static_cast<uint64_t>(e + 1023) << 52);
}

// floor(log2 a) for a finite a > 0, from its bits (subnormal doubles through ilogb).
int exponent_of(double a) {
  const int biased = static_cast<int>((std::bit_cast<uint64_t>(a) >> 52) & 0x7ff);
  return biased == 0 ? std::ilogb(a) : biased - 1023;
}

}  // namespace

// round_double_to's body, inlined where every element is rounded.
inline __attribute__((always_inline)) double round_to(double v, Dtype target, bool* midpoint) {
  if (midpoint) *midpoint = false;
  if (target == Dtype::kFloat64 || v == 0 || !std::isfinite(v)) return v;
  const FormatTraits f = traits_of(target);
  const int emax = 1 - f.min_exponent;
  const double a = std::fabs(v);
  const int e = exponent_of(a);
  if (e > emax) return std::copysign(INFINITY, v);  // beyond 2^(emax+1): past the overflow tie
  // The format's quantum at |v|; adding and removing 1.5 * 2^52 quanta rounds |v| < 2^P q to a
  // multiple of q, ties to even (the shifter's quantum is q and it is even).
  const double q = power_of_two(std::max(e, f.min_exponent) - f.precision + 1);
  const double shifter = q * 0x1.8p52;
  const double o = (a + shifter) - shifter;
  if (midpoint) *midpoint = std::fabs(a - o) == 0.5 * q;  // both exact
  const double largest = (2.0 - power_of_two(1 - f.precision)) * power_of_two(emax);
  return std::copysign(o > largest ? INFINITY : o, v);
}

double round_double_to(double v, Dtype target, bool* midpoint) {
  return round_to(v, target, midpoint);
}

namespace {

// One element (the bound above); inlined in each clone of the callers below.
inline __attribute__((always_inline)) std::optional<RotatedElement> rotate_element(
    double x, double y, const BoundedDD& c, const BoundedDD& s, Dtype target) {
  // The exact zeros, as +0: x = y = 0, or x = 0 where S is exactly 0 (position 0).
  const bool s_zero = s.hi == 0 && s.lo == 0 && s.bound == 0;
  if (x == 0 && (y == 0 || s_zero)) return RotatedElement{0.0, 0.0};
  if (!in_range(x) || !in_range(y) || !usable(c) || !usable(s)) return std::nullopt;
  const auto [p, e] = two_prod(x, c.hi);
  const auto [p2, e2] = two_prod(y, s.hi);
  const double q = x * c.lo, q2 = y * s.lo;
  const auto [h, l] = two_sum(p, -p2);
  const auto [vh, vl] = two_sum(h, l + ((e - e2) + (q - q2)));

  const double bound = std::fabs(x) * c.bound + std::fabs(y) * s.bound +
                       0x1p-100 * (std::fabs(p) + std::fabs(p2)) + 0x1p-1000;
  const double wide = bound * (1 + 0x1p-40) + 0x1p-52 * std::fabs(vl);
  if (vh + (vl - wide) != vh || vh + (vl + wide) != vh) return std::nullopt;  // T1
  bool midpoint = false;
  const double rounded = round_to(vh, target, &midpoint);  // T2
  if (midpoint) return std::nullopt;
  return RotatedElement{vh, rounded};
}

}  // namespace

// Cloned for x86-64-v3: std::fma is then one instruction, not a library call per product (the
// bound holds for any correct fma; -ffp-contract=off still forbids contracting anything else).
__attribute__((target_clones("arch=x86-64-v3", "default"))) void fast_rotate_all(
    const double* x, const double* y, size_t n, const BoundedDD& c, const BoundedDD& s,
    Dtype target, RotatedElement* out, unsigned char* decided) {
  for (size_t i = 0; i < n; ++i) {
    const std::optional<RotatedElement> v = rotate_element(x[i], y[i], c, s, target);
    decided[i] = v.has_value();
    if (v) out[i] = *v;
  }
}

}  // namespace pev::oracle
