// The reference engine: every element by MPFR, with a precision ladder (Ziv's strategy).
//
// Error bound of one rung at working precision p (the proof the rounding test relies on):
//   w~ = w (1 + e_w), |e_w| <= 2^-p: computed at P_w = p + c_w bits      (Frequencies::compute)
//   a~ = pos * w~ rounded to p bits, so |a~ - a| <= |a| (2^-p + 2^-p + 2^-2p) <= 2^(E_a + 2 - p)
//        where |a~| < 2^E_a (E_a = EXP(a~); |a| <= |a~| (1 + 2^(1-p)) is absorbed by the 2^2).
//   s~ = sin(a~) rounded to p bits: |s~ - sin a| <= |a~ - a| + 2^(EXP(s~) - p - 1)
//        <= 2^(M + 1 - p), M = max(E_a + 2, EXP(s~)), as sin and cos are 1-Lipschitz.
//   so mpfr_can_round's err = p - 1 - (M - EXP(s~)): the cancellation near a zero of sin or cos
//   (EXP(s~) << E_a) is what makes some elements climb the ladder.
// With an attention factor A != 1 (a recipe, oracle/attention.h), the value is A sin a:
//   A~ = A (1 + e_A), |e_A| <= 2^-p (computed at p + c_A bits; 0 when A is exact), |A~| < 2^E_A.
//   |A~ s~ - A sin a| <= |A| (2^-p |s~| + |s~ - sin a|) <= |A| (2^(M-p) + 2^(M+1-p))
//        < 3.0001 2^(E_A + M - p), and v~ = A~ s~ rounded to p bits adds 2^(EXP(v~) - p - 1)
//        <= 2^(E_A + M - p - 1) (EXP(v~) <= E_A + EXP(s~)): in all < 2^(E_A + M + 2 - p),
//   so err = p - 2 - (E_A + M - EXP(v~)). A is rounded once, in this product; nothing twice.
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "peverify/oracle/attention.h"
#include "peverify/oracle/correct_rounding.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {

uint64_t EngineStats::total() const {
  uint64_t n = 0;
  for (const auto& r : decided_at_rung) n += r.load(std::memory_order_relaxed);
  return n;
}

namespace {

class MpfrEngine final : public Engine {
 public:
  MpfrEngine(const TableSpec& spec, Dtype target)
      : frequencies_(spec),
        attention_(spec),
        target_(target),
        cos0_rounded_(attention_.rounded(target)),
        cos0_exact_(attention_.rounded(Dtype::kFloat64)) {}

  std::string_view name() const override { return "mpfr"; }

  void evaluate(const Tile& tile, TileValues& out) const override {
    out.resize(static_cast<size_t>(tile.position_count) * tile.pair_count);
    free_mpfr_caches_at_thread_exit();
    Scratch s;
    size_t i = 0;
    for (int r = 0; r < tile.position_count; ++r) {
      const uint64_t pos = tile.first_position + static_cast<uint64_t>(r);
      for (int k = tile.first_pair; k < tile.first_pair + tile.pair_count; ++k, ++i)
        evaluate_one(pos, k, s, out, i);
    }
  }

 private:
  // Per-call MPFR variables: threads never share them.
  struct Scratch {
    MpfrVar w, angle, sin, cos, attention, sin_scaled, cos_scaled;
  };

  void evaluate_one(uint64_t pos, int k, Scratch& s, TileValues& out, size_t i) const {
    // sin 0 = +0 and cos 0 = 1 exactly: the values are 0 and A (a zero w_k has angle 0 too).
    if (pos == 0 || frequencies_.zero(k)) {
      out.sin_rounded[i] = out.sin_exact[i] = 0.0;
      out.cos_rounded[i] = cos0_rounded_;
      out.cos_exact[i] = cos0_exact_;
      stats().decided_at_rung[0].fetch_add(1, std::memory_order_relaxed);
      return;
    }
    const int c_w = frequencies_.log2_error_factor();
    mpfr_prec_t p = 72 + std::bit_width(pos);
    for (int rung = 0; rung < EngineStats::kRungs; ++rung, p += p / 2 + 32) {
      mpfr_srcptr w = frequencies_.cached(k);
      if (p + c_w > Frequencies::kCachedPrecision) {
        frequencies_.compute(k, p + c_w, s.w);
        w = s.w;
      }
      mpfr_set_prec(s.angle, p);
      mpfr_set_prec(s.sin, p);
      mpfr_set_prec(s.cos, p);
      mpfr_mul_ui(s.angle, w, static_cast<unsigned long>(pos), MPFR_RNDN);
      mpfr_sin_cos(s.sin, s.cos, s.angle, MPFR_RNDN);
      if (mpfr_zero_p(s.sin) || mpfr_zero_p(s.cos)) continue;  // cannot happen for a~ != 0
      const mpfr_exp_t e_a = mpfr_get_exp(s.angle);
      const auto margin = [&](mpfr_srcptr v) {  // M - EXP(v~)
        return std::max<mpfr_exp_t>(e_a + 2, mpfr_get_exp(v)) - mpfr_get_exp(v);
      };
      mpfr_srcptr sin_v = s.sin, cos_v = s.cos;
      mpfr_exp_t sin_err = p - 1 - margin(s.sin), cos_err = p - 1 - margin(s.cos);
      if (!attention_.is_one()) {
        mpfr_srcptr a = attention_.cached();
        if (p > Attention::kCachedPrecision) {
          attention_.compute(p + attention_.log2_error_factor(), s.attention);
          a = s.attention;
        }
        mpfr_set_prec(s.sin_scaled, p);
        mpfr_set_prec(s.cos_scaled, p);
        mpfr_mul(s.sin_scaled, a, s.sin, MPFR_RNDN);
        mpfr_mul(s.cos_scaled, a, s.cos, MPFR_RNDN);
        const mpfr_exp_t e_A = mpfr_get_exp(a);
        // err = p - 2 - (E_A + M - EXP(v~)), M - EXP(v~) = margin(s~) + EXP(s~) - EXP(v~).
        sin_err = p - 2 - (e_A + margin(s.sin) + mpfr_get_exp(s.sin) - mpfr_get_exp(s.sin_scaled));
        cos_err = p - 2 - (e_A + margin(s.cos) + mpfr_get_exp(s.cos) - mpfr_get_exp(s.cos_scaled));
        sin_v = s.sin_scaled;
        cos_v = s.cos_scaled;
      }
      const auto sin_t = round_if_decided(sin_v, sin_err, target_);
      const auto cos_t = round_if_decided(cos_v, cos_err, target_);
      const auto sin_d = round_if_decided(sin_v, sin_err, Dtype::kFloat64);
      const auto cos_d = round_if_decided(cos_v, cos_err, Dtype::kFloat64);
      if (sin_t && cos_t && sin_d && cos_d) {
        out.sin_rounded[i] = *sin_t;
        out.cos_rounded[i] = *cos_t;
        out.sin_exact[i] = *sin_d;
        out.cos_exact[i] = *cos_d;
        stats().decided_at_rung[rung].fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
    throw std::logic_error("oracle: rounding undecided at every rung for pos " +
                           std::to_string(pos) + ", pair " + std::to_string(k));
  }

  Frequencies frequencies_;
  Attention attention_;
  Dtype target_;
  double cos0_rounded_, cos0_exact_;  // A, the value of every cos at position 0
};

}  // namespace

std::unique_ptr<Engine> make_mpfr_engine(const TableSpec& spec, Dtype target) {
  return std::make_unique<MpfrEngine>(spec, target);
}

}  // namespace pev::oracle
