#include "peverify/oracle/arb_recipe.h"

#include <arf.h>
#include <flint/fmpq.h>

#include <algorithm>
#include <stdexcept>

namespace pev::oracle {
namespace {

// Owners, so that an early return cannot leak.
struct Ball {
  arb_t v;
  Ball() { arb_init(v); }
  ~Ball() { arb_clear(v); }
  Ball(const Ball&) = delete;
  Ball& operator=(const Ball&) = delete;
};
struct Rational {
  fmpq_t v;
  Rational(slong p, slong q) {
    fmpq_init(v);
    fmpq_set_si(v, p, static_cast<ulong>(q));
    fmpq_canonicalise(v);
  }
  ~Rational() { fmpq_clear(v); }
};

// theta_j = b^(num/den), the exponent an exact rational.
void power_of_base(const TableSpec& spec, int pair, slong prec, arb_t out) {
  const FrequencyExponent e = frequency_exponent(spec, pair);
  Ball base;
  arb_set_d(base.v, spec.base);
  const Rational exponent(e.numerator, e.denominator);
  arb_pow_fmpq(out, base.v, exponent.v, prec);
}

// find_correction_dim: (dim * log(L0 / (num_rotations * 2 * pi))) / (2 * log(base)).
void correction_dim(const TableSpec& spec, double rotations, slong prec, arb_t out) {
  Ball t, log_base;
  arb_const_pi(t.v, prec);
  arb_mul_2exp_si(t.v, t.v, 1);
  arb_set_d(out, rotations);
  arb_mul(t.v, out, t.v, prec);
  arb_set_ui(out, spec.rope.original_max_position);
  arb_div(t.v, out, t.v, prec);
  arb_log(t.v, t.v, prec);
  arb_mul_si(t.v, t.v, spec.d_model, prec);
  arb_set_d(log_base.v, spec.base);
  arb_log(log_base.v, log_base.v, prec);
  arb_mul_2exp_si(log_base.v, log_base.v, 1);
  arb_div(out, t.v, log_base.v, prec);
}

// find_correction_range and linear_ramp_factor; false while a branch is open.
bool yarn_range(const TableSpec& spec, slong prec, arb_t low, arb_t high) {
  const RopeScaling& r = spec.rope;
  Ball last;
  arb_set_si(last.v, spec.d_model - 1);
  correction_dim(spec, r.beta_fast, prec, low);
  correction_dim(spec, r.beta_slow, prec, high);
  bool equal = false;
  if (r.truncate) {
    arb_floor(low, low, prec);
    arb_ceil(high, high, prec);
    if (!arb_is_exact(low) || !arb_is_exact(high)) return false;
    Ball zero;
    arb_max(low, low, zero.v, prec);
    arb_min(high, high, last.v, prec);
    equal = arb_eq(low, high);
  } else {
    bool low_is_cd = true, high_is_cd = true;
    if (arb_is_negative(low)) {
      arb_zero(low);
      low_is_cd = false;
    } else if (!arb_is_positive(low)) {
      return false;
    }
    if (arb_gt(high, last.v)) {
      arb_set(high, last.v);
      high_is_cd = false;
    } else if (!arb_lt(high, last.v)) {
      return false;
    }
    // cd falls strictly with the number of rotations: two cd's agree only for equal betas.
    equal = low_is_cd && high_is_cd && r.beta_fast == r.beta_slow;
  }
  if (equal) {
    Ball thousandth;
    const Rational q(1, 1000);
    arb_set_fmpq(thousandth.v, q.v, prec);
    arb_add(high, high, thousandth.v, prec);
  }
  return true;
}

// clamp((j - low) / (high - low), 0, 1); false while the clamp is open.
bool yarn_ramp(int pair, const arb_t low, const arb_t high, slong prec, arb_t ramp) {
  Ball width, less_one;
  arb_sub(width.v, high, low, prec);
  arb_set_si(ramp, pair);
  arb_sub(ramp, ramp, low, prec);
  arb_div(ramp, ramp, width.v, prec);
  if (!arb_is_finite(ramp)) return false;
  arb_sub_ui(less_one.v, ramp, 1, prec);
  if (arb_is_nonpositive(ramp)) {
    arb_zero(ramp);
  } else if (arb_is_nonnegative(less_one.v)) {
    arb_one(ramp);
  } else if (!arb_is_positive(ramp) || !arb_is_negative(less_one.v)) {
    return false;
  }
  return true;
}

// The llama3 band of theta: -1 kept (wavelen < L0 / high), 1 divided (wavelen > L0 / low), 0
// smoothed; 2 while undecided.
int llama3_band(const TableSpec& spec, const arb_t theta, slong prec) {
  const RopeScaling& r = spec.rope;
  Ball wavelength, low_wavelength, high_wavelength, factor;
  arb_const_pi(wavelength.v, prec);
  arb_mul_2exp_si(wavelength.v, wavelength.v, 1);
  arb_div(wavelength.v, wavelength.v, theta, prec);
  arb_set_ui(low_wavelength.v, r.original_max_position);
  arb_set(high_wavelength.v, low_wavelength.v);
  arb_set_d(factor.v, r.low_freq_factor);
  arb_div(low_wavelength.v, low_wavelength.v, factor.v, prec);
  arb_set_d(factor.v, r.high_freq_factor);
  arb_div(high_wavelength.v, high_wavelength.v, factor.v, prec);
  if (arb_lt(wavelength.v, high_wavelength.v)) return -1;
  if (arb_gt(wavelength.v, low_wavelength.v)) return 1;
  if (arb_gt(wavelength.v, high_wavelength.v) && arb_lt(wavelength.v, low_wavelength.v)) return 0;
  return 2;
}

// g(s, m) = 0.1 * m * log(s) + 1, 1 for s <= 1.
void mscale(double s, double m, slong prec, arb_t out) {
  if (s <= 1) {
    arb_one(out);
    return;
  }
  Ball tenth;
  const Rational q(1, 10);
  arb_set_fmpq(tenth.v, q.v, prec);
  arb_set_d(out, s);
  arb_log(out, out, prec);
  Ball mb;
  arb_set_d(mb.v, m);
  arb_mul(out, out, mb.v, prec);
  arb_mul(out, out, tenth.v, prec);
  arb_add_ui(out, out, 1, prec);
}

// dynamic: base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim -
// 2)), raised to -2 pair / d.
void dynamic_frequency(const TableSpec& spec, int pair, const arb_t s, slong prec, arb_t w) {
  const RopeScaling& r = spec.rope;
  Ball t, base;
  const uint64_t n = std::max(r.sequence_length, r.max_position);
  arb_mul_ui(t.v, s, n, prec);
  arb_div_ui(t.v, t.v, r.max_position, prec);
  arb_sub(t.v, t.v, s, prec);
  arb_add_ui(t.v, t.v, 1, prec);
  const Rational power(spec.d_model, spec.d_model - 2);
  arb_pow_fmpq(t.v, t.v, power.v, prec);
  arb_set_d(base.v, spec.base);
  arb_mul(t.v, t.v, base.v, prec);
  const Rational exponent(-2 * pair, spec.d_model);
  arb_pow_fmpq(w, t.v, exponent.v, prec);
}

// yarn: inv_freq_interpolation * (1 - extrapolation_factor) + inv_freq_extrapolation *
// extrapolation_factor, extrapolation_factor = 1 - ramp; false where the ramp is undecided.
bool yarn_frequency(const TableSpec& spec, int pair, const arb_t theta, const arb_t s, slong prec,
                    arb_t w) {
  Ball low, high, ramp, rest, t;
  if (!yarn_range(spec, prec, low.v, high.v) || !yarn_ramp(pair, low.v, high.v, prec, ramp.v))
    return false;
  arb_div(t.v, theta, s, prec);
  arb_mul(t.v, t.v, ramp.v, prec);
  arb_sub_ui(rest.v, ramp.v, 1, prec);
  arb_neg(rest.v, rest.v);
  arb_mul(rest.v, rest.v, theta, prec);
  arb_add(w, t.v, rest.v, prec);
  return true;
}

// llama3: theta, theta / factor, or between them smooth = (L0 / wavelen - low) / (high - low);
// (1 - smooth) inv_freq / factor + smooth inv_freq, with L0 / wavelen = L0 theta / (2 pi); false
// where the band is undecided.
bool llama3_frequency(const TableSpec& spec, const arb_t theta, const arb_t s, slong prec,
                      arb_t w) {
  const RopeScaling& r = spec.rope;
  const int band = llama3_band(spec, theta, prec);
  if (band == 2) return false;
  if (band < 0) {
    arb_set(w, theta);
    return true;
  }
  if (band > 0) {
    arb_div(w, theta, s, prec);
    return true;
  }
  Ball smooth, span, a, t;
  arb_const_pi(smooth.v, prec);
  arb_mul_2exp_si(smooth.v, smooth.v, 1);
  arb_div(smooth.v, theta, smooth.v, prec);
  arb_mul_ui(smooth.v, smooth.v, r.original_max_position, prec);
  arb_set_d(a.v, r.low_freq_factor);
  arb_sub(smooth.v, smooth.v, a.v, prec);
  arb_set_d(span.v, r.high_freq_factor);
  arb_sub(span.v, span.v, a.v, prec);
  arb_div(smooth.v, smooth.v, span.v, prec);
  arb_sub_ui(a.v, smooth.v, 1, prec);
  arb_neg(a.v, a.v);
  arb_mul(a.v, a.v, theta, prec);
  arb_div(a.v, a.v, s, prec);
  arb_mul(t.v, smooth.v, theta, prec);
  arb_add(w, a.v, t.v, prec);
  return true;
}

}  // namespace

bool arb_frequency(const TableSpec& spec, int pair, slong prec, arb_t w) {
  const RopeScaling& r = spec.rope;
  Ball theta, s, t;
  arb_set_d(s.v, r.factor);
  power_of_base(spec, pair, prec, theta.v);
  switch (r.type) {
    case RopeType::kDefault:
      arb_set(w, theta.v);
      return true;
    case RopeType::kLinear:
      arb_div(w, theta.v, s.v, prec);
      return true;
    case RopeType::kDynamic:
      dynamic_frequency(spec, pair, s.v, prec, w);
      return true;
    case RopeType::kYarn:
      return yarn_frequency(spec, pair, theta.v, s.v, prec, w);
    case RopeType::kLongRope: {
      const bool long_list = r.sequence_length > r.original_max_position;
      arb_set_d(t.v, (long_list ? r.long_factor : r.short_factor)[pair]);
      arb_div(w, theta.v, t.v, prec);
      return true;
    }
    case RopeType::kProportional:
      // rope_angles = int(rope_proportion * head_dim // 2) pairs of theta / factor, then zeros.
      if (pair < rotated_pairs(r, spec.d_model))
        arb_div(w, theta.v, s.v, prec);
      else
        arb_zero(w);
      return true;
    case RopeType::kLlama3:
      return llama3_frequency(spec, theta.v, s.v, prec, w);
  }
  return false;
}

void arb_attention(const TableSpec& spec, slong prec, arb_t a) {
  const RopeScaling& r = spec.rope;
  if (r.attention_factor) {
    arb_set_d(a, *r.attention_factor);
    return;
  }
  if (r.type == RopeType::kYarn) {
    if (r.mscale && r.mscale_all_dim && *r.mscale != 0 && *r.mscale_all_dim != 0) {
      Ball all_dim;
      mscale(r.factor, *r.mscale, prec, a);
      mscale(r.factor, *r.mscale_all_dim, prec, all_dim.v);
      arb_div(a, a, all_dim.v, prec);
    } else {
      mscale(r.factor, 1.0, prec, a);
    }
    return;
  }
  if (r.type == RopeType::kLongRope) {
    // factor = max_position_embeddings / original_max_position_embeddings; 1 if factor <= 1,
    // else sqrt(1 + log(factor) / log(original_max_position_embeddings)).
    const bool from_lengths = r.max_position && r.original_max_position;
    if (from_lengths ? r.max_position <= r.original_max_position : r.factor <= 1) {
      arb_one(a);
      return;
    }
    Ball log_l0;
    if (from_lengths) {
      arb_set_ui(a, r.max_position);
      arb_div_ui(a, a, r.original_max_position, prec);
    } else {
      arb_set_d(a, r.factor);
    }
    arb_log(a, a, prec);
    arb_log_ui(log_l0.v, r.original_max_position, prec);
    arb_div(a, a, log_l0.v, prec);
    arb_add_ui(a, a, 1, prec);
    arb_sqrt(a, a, prec);
    return;
  }
  arb_one(a);
}

ArbRecipeFacts arb_recipe_facts(const TableSpec& spec) {
  ArbRecipeFacts f;
  for (slong prec = 128; prec <= 4096; prec *= 2) {
    Ball low, high, w, theta, a;
    f = ArbRecipeFacts{};
    bool decided = true;
    if (spec.rope.type == RopeType::kYarn) {
      decided = yarn_range(spec, prec, low.v, high.v);
      if (decided) {
        f.yarn_low = arf_get_d(arb_midref(low.v), ARF_RND_NEAR);
        f.yarn_high = arf_get_d(arb_midref(high.v), ARF_RND_NEAR);
      }
    }
    for (int j = 0; decided && j < spec.d_model / 2; ++j) {
      if (spec.rope.type == RopeType::kLlama3) {
        power_of_base(spec, j, prec, theta.v);
        const int band = llama3_band(spec, theta.v, prec);
        decided = band != 2;
        (band < 0 ? f.kept : band > 0 ? f.divided : f.smoothed) += 1;
      } else if (spec.rope.type == RopeType::kYarn) {
        decided = yarn_ramp(j, low.v, high.v, prec, w.v);
        if (decided) {
          const bool zero = arb_is_zero(w.v), one = arb_is_one(w.v);
          (zero ? f.kept : one ? f.divided : f.smoothed) += 1;
        }
      }
    }
    if (!decided) continue;
    arb_attention(spec, prec, a.v);
    f.attention = arf_get_d(arb_midref(a.v), ARF_RND_NEAR);
    return f;
  }
  throw std::runtime_error("arb_recipe_facts: undecided at 2^12 bits");
}

}  // namespace pev::oracle
