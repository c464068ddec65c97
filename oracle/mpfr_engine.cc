// The reference engine: every element by MPFR, with a precision ladder (Ziv's strategy).
//
// Error bound of one rung at working precision p (the proof the rounding test relies on):
//   w~ = w (1 + e_w), |e_w| <= 2^(c_w - P_w) with P_w >= p + c_w    (Frequencies::compute)
//   a~ = pos * w~ rounded to p bits, so |a~ - a| <= |a| (2^-p + 2^-p + 2^-2p) <= 2^(E_a + 2 - p)
//        where |a~| < 2^E_a (E_a = EXP(a~); |a| <= |a~| (1 + 2^(1-p)) is absorbed by the 2^2).
//   s~ = sin(a~) rounded to p bits: |s~ - sin a| <= |a~ - a| + 2^(EXP(s~) - p - 1)
//        <= 2^(max(E_a + 2, EXP(s~)) + 1 - p), as sin and cos are 1-Lipschitz.
//   so mpfr_can_round's err = p - 1 - max(E_a + 2 - EXP(s~), 0): the cancellation near a zero
//   of sin or cos (EXP(s~) << E_a) is what makes some elements climb the ladder.
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "oracle/correct_rounding.h"
#include "oracle/engine.h"
#include "oracle/frequencies.h"

namespace pev::oracle {

uint64_t EngineStats::total() const {
  uint64_t n = 0;
  for (const auto& r : decided_at_rung) n += r.load(std::memory_order_relaxed);
  return n;
}

namespace {

class MpfrEngine final : public Engine {
 public:
  MpfrEngine(const TableSpec& spec, Dtype target) : frequencies_(spec), target_(target) {}

  std::string_view name() const override { return "mpfr"; }

  void evaluate(const Tile& tile, TileValues& out) const override {
    out.resize(static_cast<size_t>(tile.position_count) * tile.pair_count);
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
    mpfr_t w, angle, sin, cos;
    Scratch() { mpfr_inits2(64, w, angle, sin, cos, static_cast<mpfr_ptr>(nullptr)); }
    ~Scratch() { mpfr_clears(w, angle, sin, cos, static_cast<mpfr_ptr>(nullptr)); }
  };

  void evaluate_one(uint64_t pos, int k, Scratch& s, TileValues& out, size_t i) const {
    if (pos == 0) {  // sin 0 = +0 and cos 0 = 1 exactly: no rounding to decide
      out.sin_rounded[i] = out.sin_exact[i] = 0.0;
      out.cos_rounded[i] = out.cos_exact[i] = 1.0;
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
      const auto err = [&](mpfr_srcptr v) {
        return p - 1 - std::max<mpfr_exp_t>(e_a + 2 - mpfr_get_exp(v), 0);
      };
      const auto sin_t = round_if_decided(s.sin, err(s.sin), target_);
      const auto cos_t = round_if_decided(s.cos, err(s.cos), target_);
      const auto sin_d = round_if_decided(s.sin, err(s.sin), Dtype::kFloat64);
      const auto cos_d = round_if_decided(s.cos, err(s.cos), Dtype::kFloat64);
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
  Dtype target_;
};

}  // namespace

std::unique_ptr<Engine> make_mpfr_engine(const TableSpec& spec, Dtype target) {
  return std::make_unique<MpfrEngine>(spec, target);
}

}  // namespace pev::oracle
