// The fast engine: frequencies from MPFR stored as three doubles of quarter turns per position,
// each row evaluated by the double-double kernel (fast_engine_kernel.cc, bound derived in
// fast_engine.md), and what the bound cannot decide handed to the MPFR engine (Ziv's strategy),
// so its results are the MPFR engine's bit for bit.
#include <mpfr.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "peverify/oracle/attention.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/fast_engine_kernel.h"
#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {
namespace fast {

const double* sincos_table() {
  static const std::array<double, 4 * kTableEntries> table = [] {
    free_mpfr_caches_at_thread_exit();
    std::array<double, 4 * kTableEntries> t{};
    mpfr_t x, s, c, rest;
    mpfr_inits2(256, x, s, c, rest, static_cast<mpfr_ptr>(nullptr));
    for (int j = 0; j < kTableEntries; ++j) {
      mpfr_const_pi(x, MPFR_RNDN);
      mpfr_mul_si(x, x, j, MPFR_RNDN);
      mpfr_div_2ui(x, x, 10, MPFR_RNDN);  // j pi / 1024 = (j / 512) quarter turns
      mpfr_sin_cos(s, c, x, MPFR_RNDN);
      for (const auto& [v, slot] : {std::pair{s, 0}, std::pair{c, 2}}) {
        const double hi = mpfr_get_d(v, MPFR_RNDN);
        mpfr_sub_d(rest, v, hi, MPFR_RNDN);  // exact at 256 bits
        t[4 * j + slot] = hi;
        t[4 * j + slot + 1] = mpfr_get_d(rest, MPFR_RNDN);
      }
    }
    mpfr_clears(x, s, c, rest, static_cast<mpfr_ptr>(nullptr));
    return t;
  }();
  return table.data();
}

namespace {

// Below this many quarter turns per position the lowest of the three words would leave the normal
// range of double; such pairs (bases beyond ~2^800) are always handed off.
constexpr double kSmallestT = 0x1p-800;
// Attention factors the kernel scales by (fast_engine.md, A): beyond, values could underflow out
// of the bound's reach or overflow float16; such tables are handed off whole.
constexpr double kSmallestAttention = 0x1p-64, kLargestAttention = 0x1p8;

}  // namespace

TableWords table_words(const TableSpec& spec) {
  free_mpfr_caches_at_thread_exit();
  TableWords words;
  const int pairs = spec.d_model / 2;
  for (auto* v : {&words.t0, &words.t1, &words.t2}) v->assign(pairs + kPad, 0.0);
  words.zero.assign(static_cast<size_t>(pairs), 0);
  std::fill(words.t0.begin() + pairs, words.t0.end(), 0.25);  // the pad: any finite value
  const Frequencies frequencies(spec);
  const Attention attention(spec);
  if (!attention.is_one()) {
    // A as a double-double from 384 bits: |A - hi - lo| <= 2^-105.9 |A| (fast_engine.md, A).
    MpfrVar rest(mpfr_get_prec(attention.cached()));
    words.attention_hi = mpfr_get_d(attention.cached(), MPFR_RNDN);
    mpfr_sub_d(rest, attention.cached(), words.attention_hi, MPFR_RNDN);  // exact: A~'s own bits
    words.attention_lo = mpfr_get_d(rest, MPFR_RNDN);
    const double a = std::fabs(words.attention_hi);
    words.attention_in_range = a >= kSmallestAttention && a <= kLargestAttention;
  }
  // t = w 2/pi at 448 bits: relative error <= 2^-319 (w's is 2^(c_w - 384) <= 2^-320 from the
  // cache, or 2^-384 recomputed for a recipe with c_w > 64; fast_engine.md, R0).
  const int c_w = frequencies.log2_error_factor();
  MpfrVar w(Frequencies::kCachedPrecision + c_w);
  mpfr_t t, two_over_pi;
  mpfr_inits2(448, t, two_over_pi, static_cast<mpfr_ptr>(nullptr));
  mpfr_const_pi(two_over_pi, MPFR_RNDN);
  mpfr_ui_div(two_over_pi, 2, two_over_pi, MPFR_RNDN);
  for (int k = 0; k < pairs; ++k) {
    words.zero[k] = frequencies.zero(k);
    mpfr_srcptr wk = frequencies.cached(k);
    if (c_w > 64) {
      frequencies.compute(k, Frequencies::kCachedPrecision + c_w, w);
      wk = w;
    }
    mpfr_mul(t, wk, two_over_pi, MPFR_RNDN);
    if (mpfr_cmp_d(t, kSmallestT) < 0) {
      words.t0[k] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    // Each word is the nearest double to what the previous ones leave; the subtractions are
    // exact at 448 bits, so |t - t0 - t1 - t2| <= u^3 t0 (fast_engine.md, R0).
    for (auto* word : {&words.t0, &words.t1, &words.t2}) {
      (*word)[k] = mpfr_get_d(t, MPFR_RNDN);
      mpfr_sub_d(t, t, (*word)[k], MPFR_RNDN);
    }
  }
  mpfr_clears(t, two_over_pi, static_cast<mpfr_ptr>(nullptr));
  return words;
}

}  // namespace fast

namespace {

class FastEngine final : public Engine {
 public:
  FastEngine(const TableSpec& spec, Dtype target)
      : spec_(spec), target_(target), words_(fast::table_words(spec)) {
    const Attention attention(spec);
    cos0_rounded_ = attention.rounded(target);
    cos0_exact_ = attention.rounded(Dtype::kFloat64);
  }

  std::string_view name() const override { return "fast"; }

  void evaluate(const Tile& tile, TileValues& out) const override {
    const auto pairs = static_cast<size_t>(tile.pair_count);
    out.resize(static_cast<size_t>(tile.position_count) * pairs);
    std::vector<uint32_t> undecided(pairs);
    const fast::PairArrays at{words_.t0.data() + tile.first_pair,
                              words_.t1.data() + tile.first_pair,
                              words_.t2.data() + tile.first_pair};
    uint64_t decided = 0, handed = 0;
    for (int r = 0; r < tile.position_count; ++r) {
      const uint64_t pos = tile.first_position + static_cast<uint64_t>(r);
      const size_t first = static_cast<size_t>(r) * pairs;
      if (pos == 0) {  // sin 0 = +0 and cos 0 = 1 exactly: the values are 0 and A
        std::fill_n(out.sin_rounded.begin() + first, pairs, 0.0);
        std::fill_n(out.sin_exact.begin() + first, pairs, 0.0);
        std::fill_n(out.cos_rounded.begin() + first, pairs, cos0_rounded_);
        std::fill_n(out.cos_exact.begin() + first, pairs, cos0_exact_);
        decided += pairs;
        continue;
      }
      size_t n = pairs;  // a position the kernel cannot hold exactly goes to MPFR whole
      if (pos <= kMaxPosition && words_.attention_in_range) {
        const fast::Row row{.position = static_cast<double>(pos),
                            .pairs = at,
                            .attention_hi = words_.attention_hi,
                            .attention_lo = words_.attention_lo,
                            .count = pairs,
                            .sin_rounded = out.sin_rounded.data() + first,
                            .cos_rounded = out.cos_rounded.data() + first,
                            .sin_exact = out.sin_exact.data() + first,
                            .cos_exact = out.cos_exact.data() + first,
                            .undecided = undecided.data()};
        n = fast::evaluate_row(row, target_);
      } else {
        for (size_t i = 0; i < pairs; ++i) undecided[i] = static_cast<uint32_t>(i);
      }
      size_t to_mpfr = 0;
      for (size_t i = 0; i < n; ++i)
        to_mpfr += hand_off(pos, tile.first_pair + static_cast<int>(undecided[i]), out,
                            first + undecided[i]);
      decided += pairs - to_mpfr;
      handed += to_mpfr;
    }
    // Rung 0 is the fast path; rung 1 counts what the MPFR engine decided (its own ladder).
    stats().decided_at_rung[0].fetch_add(decided, std::memory_order_relaxed);
    stats().decided_at_rung[1].fetch_add(handed, std::memory_order_relaxed);
    stats().handed_off.fetch_add(handed, std::memory_order_relaxed);
  }

 private:
  // Whether the element went to the MPFR engine (a zero frequency needs none).
  bool hand_off(uint64_t pos, int pair, TileValues& out, size_t i) const {
    if (words_.zero[static_cast<size_t>(pair)]) {  // angle 0 at every position: 0 and A
      out.sin_rounded[i] = out.sin_exact[i] = 0.0;
      out.cos_rounded[i] = cos0_rounded_;
      out.cos_exact[i] = cos0_exact_;
      return false;
    }
    std::call_once(fallback_once_, [this] { fallback_ = make_mpfr_engine(spec_, target_); });
    TileValues v;
    fallback_->evaluate(Tile{pos, 1, pair, 1}, v);
    out.sin_rounded[i] = v.sin_rounded[0];
    out.cos_rounded[i] = v.cos_rounded[0];
    out.sin_exact[i] = v.sin_exact[0];
    out.cos_exact[i] = v.cos_exact[0];
    return true;
  }

  TableSpec spec_;
  Dtype target_;
  fast::TableWords words_;
  double cos0_rounded_ = 1, cos0_exact_ = 1;  // A rounded: every cos at position 0
  // Built on the first hand-off: most tables never need it.
  mutable std::once_flag fallback_once_;
  mutable std::unique_ptr<Engine> fallback_;
};

}  // namespace

std::string_view name_of(EngineKind kind) { return kind == EngineKind::kFast ? "fast" : "mpfr"; }

std::optional<EngineKind> parse_engine_kind(std::string_view name) {
  if (name == "fast") return EngineKind::kFast;
  if (name == "mpfr") return EngineKind::kMpfr;
  return std::nullopt;
}

std::unique_ptr<Engine> make_fast_engine(const TableSpec& spec, Dtype target) {
  return std::make_unique<FastEngine>(spec, target);
}

std::unique_ptr<Engine> make_engine(EngineKind kind, const TableSpec& spec, Dtype target) {
  return kind == EngineKind::kFast ? make_fast_engine(spec, target)
                                   : make_mpfr_engine(spec, target);
}

}  // namespace pev::oracle
