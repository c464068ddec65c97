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

// Rows per anchor row (fast_engine.md, N): each tile's rows 0, 8, 16, ... are evaluated by the
// kernel, and the rows between rotated from them by the values at 1 .. 7 positions, which cost
// about a third of the kernel; what the rotation's absolute bound cannot decide (values near 0)
// goes back to the kernel, then to MPFR.
constexpr int kRowsPerAnchor = 8;

class FastEngine final : public Engine {
 public:
  FastEngine(const TableSpec& spec, Dtype target)
      : spec_(spec), target_(target), words_(fast::table_words(spec)) {
    const Attention attention(spec);
    cos0_rounded_ = attention.rounded(target);
    cos0_exact_ = attention.rounded(Dtype::kFloat64);
    // The values at positions 1 .. kRowsPerAnchor - 1 of every pair, unrounded, with bounds.
    const size_t pairs = words_.zero.size();
    Scratch scratch(pairs);
    for (int j = 1; j < kRowsPerAnchor; ++j) {
      offsets_[j].resize(pairs);
      kernel_row(static_cast<uint64_t>(j), 0, pairs, scratch.row(pairs), &offsets_[j]);
    }
  }

  std::string_view name() const override { return "fast"; }

  void evaluate(const Tile& tile, TileValues& out) const override {
    const auto pairs = static_cast<size_t>(tile.pair_count);
    out.resize(static_cast<size_t>(tile.position_count) * pairs);
    std::vector<uint32_t> undecided(pairs);
    // Per thread, not per call: verify evaluates a tile of 8 rows at a time.
    thread_local fast::RowValues anchor;
    anchor.resize(pairs);
    bool anchored = false;  // `anchor` holds the values at this group's first row
    uint64_t decided = 0, handed = 0;
    for (int r = 0; r < tile.position_count; ++r) {
      const uint64_t pos = tile.first_position + static_cast<uint64_t>(r);
      const int j = r % kRowsPerAnchor;
      const size_t first = static_cast<size_t>(r) * pairs;
      const fast::RowOutputs row_out{out.sin_rounded.data() + first, out.cos_rounded.data() + first,
                                     out.sin_exact.data() + first, out.cos_exact.data() + first,
                                     undecided.data()};
      if (j == 0) anchored = false;
      if (pos == 0) {  // sin 0 = +0 and cos 0 = 1 exactly: the values are 0 and A
        std::fill_n(out.sin_rounded.begin() + first, pairs, 0.0);
        std::fill_n(out.sin_exact.begin() + first, pairs, 0.0);
        std::fill_n(out.cos_rounded.begin() + first, pairs, cos0_rounded_);
        std::fill_n(out.cos_exact.begin() + first, pairs, cos0_exact_);
        if (j == 0) {  // an exact anchor: sin 0 + 0, cos 1 + 0, bounds 0
          anchor.set_exact(0.0, 1.0);
          anchored = true;
        }
        decided += pairs;
        continue;
      }
      size_t n = pairs;  // a position the kernel cannot hold exactly goes to MPFR whole
      if (pos <= kMaxPosition && words_.attention_in_range) {
        if (anchored) {
          n = rotated_row(tile.first_pair, pairs, j, anchor, row_out);
          n = kernel_retry(pos, tile.first_pair, n, row_out);
        } else {
          n = kernel_row(pos, tile.first_pair, pairs, row_out, j == 0 ? &anchor : nullptr);
          anchored = j == 0;
        }
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
  // Room for a row of `count` results (the kernel's retry of a rotated row's elements).
  struct Scratch {
    explicit Scratch(size_t count) { resize(count); }
    void resize(size_t count) {
      values.resize(4 * count);
      undecided.resize(count);
    }
    fast::RowOutputs row(size_t count) {
      return {values.data(), values.data() + count, values.data() + 2 * count,
              values.data() + 3 * count, undecided.data()};
    }
    std::vector<double> values;
    std::vector<uint32_t> undecided;
  };

  // The kernel on pairs [first_pair, first_pair + count) at `pos`; returns how many it left
  // undecided. `keep`: the values before rounding too (an anchor row, or the offsets).
  size_t kernel_row(uint64_t pos, int first_pair, size_t count, const fast::RowOutputs& o,
                    fast::RowValues* keep) const {
    return kernel_row(pos,
                      {words_.t0.data() + first_pair, words_.t1.data() + first_pair,
                       words_.t2.data() + first_pair},
                      count, o, keep);
  }
  size_t kernel_row(uint64_t pos, const fast::PairArrays& pairs, size_t count,
                    const fast::RowOutputs& o, fast::RowValues* keep = nullptr) const {
    return fast::evaluate_row({.position = static_cast<double>(pos),
                               .pairs = pairs,
                               .attention_hi = words_.attention_hi,
                               .attention_lo = words_.attention_lo,
                               .count = count,
                               .out = o,
                               .keep = keep},
                              target_);
  }

  // The row j positions after the anchor, rotated from it (fast_engine.md, N).
  size_t rotated_row(int first_pair, size_t count, int j, const fast::RowValues& anchor,
                     const fast::RowOutputs& o) const {
    const fast::RotatedRow row{.anchor = fast::values_at(anchor, 0),
                               .offset = fast::values_at(offsets_[j], first_pair),
                               .attention_hi = words_.attention_hi,
                               .attention_lo = words_.attention_lo,
                               .count = count,
                               .out = o};
    return fast::evaluate_rotated_row(row, target_);
  }

  // The kernel again on the n elements a rotated row left undecided (o.undecided[0 .. n)), whose
  // values lie near 0, where the kernel's bound is relative and the rotation's absolute; returns
  // how many remain, listed in o.undecided.
  size_t kernel_retry(uint64_t pos, int first_pair, size_t n, const fast::RowOutputs& o) const {
    if (n == 0) return 0;
    thread_local std::vector<double> t0, t1, t2;
    thread_local Scratch scratch(0);
    t0.assign(n + fast::kPad, 0.25);  // the pads: any finite value
    t1.assign(n + fast::kPad, 0.0);
    t2.assign(n + fast::kPad, 0.0);
    for (size_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(first_pair) + o.undecided[i];
      t0[i] = words_.t0[k];
      t1[i] = words_.t1[k];
      t2[i] = words_.t2[k];
    }
    scratch.resize(n);
    const fast::RowOutputs s = scratch.row(n);
    const size_t left = kernel_row(pos, {t0.data(), t1.data(), t2.data()}, n, s);
    for (size_t i = 0; i < n; ++i) {  // the undecided ones are overwritten by the caller
      const uint32_t at = o.undecided[i];
      o.sin_rounded[at] = s.sin_rounded[i];
      o.cos_rounded[at] = s.cos_rounded[i];
      o.sin_exact[at] = s.sin_exact[i];
      o.cos_exact[at] = s.cos_exact[i];
    }
    for (size_t i = 0; i < left; ++i) s.undecided[i] = o.undecided[s.undecided[i]];
    std::copy_n(s.undecided, left, o.undecided);
    return left;
  }

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
  double cos0_rounded_ = 1, cos0_exact_ = 1;             // A rounded: every cos at position 0
  std::array<fast::RowValues, kRowsPerAnchor> offsets_;  // [j]: at position j; [0] unused
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
