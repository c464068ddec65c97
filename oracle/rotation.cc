#include "peverify/oracle/rotation.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "peverify/oracle/fast_engine_kernel.h"
#include "peverify/oracle/rotation_engines.h"

namespace pev::oracle {

struct RotationOracle::Engines {
  Engines(const RotationSpec& spec, Dtype target)
      : mpfr(spec.table, target), words(fast::table_words(spec.table)) {
    // Elements in the order of the dims they are written at: out_a = x_a C - x_b S at pair j's
    // first output dim, out_b = x_b C - (-x_a) S at its second.
    const int d = spec.table.d_model;
    own.resize(d), partner.resize(d), partner_sign.resize(d), pair_of.resize(d);
    for (int j = 0; j < d / 2; ++j) {
      const auto [a, b] = rotated_dims(spec, j);
      const auto [out_a, out_b] = output_dims(spec, j);
      own[out_a] = a, partner[out_a] = b, partner_sign[out_a] = 1.0, pair_of[out_a] = j;
      own[out_b] = b, partner[out_b] = a, partner_sign[out_b] = -1.0, pair_of[out_b] = j;
    }
    identity = halves = true;
    for (int k = 0; k < d; ++k) {
      identity = identity && own[k] == k;
      halves = halves && partner[k] == (k + d / 2) % d && (partner_sign[k] > 0) == (k < d / 2);
    }
  }
  MpfrRotation mpfr;
  fast::TableWords words;  // the fast engine's per-pair words and A (fast_engine.md, R0, A1)
  // Per output dim k < d: the input dim it rotates, its partner's and the partner's sign in y, its
  // pair; identity: every output dim rotates its own input dim (x needs no copy).
  std::vector<int> own, partner, pair_of;
  std::vector<double> partner_sign;
  bool identity = true;
  // y is x's second half, then its first half negated (the halves convention, in and out).
  bool halves = true;
};

// One thread's scratch for a token: per pair its position, and per element (output dim) its C
// and S (its pair's), x, y and whether the fast engine decided it.
struct RotationOracle::Scratch {
  std::vector<uint64_t> pos;
  std::vector<std::array<double, 6>> pair_cos_sin;
  std::vector<double> c_hi, c_lo, c_bound, s_hi, s_lo, s_bound, x, y, decided;
  void resize(size_t pairs) {
    pos.resize(pairs);
    pair_cos_sin.resize(pairs);
    for (std::vector<double>* v :
         {&c_hi, &c_lo, &c_bound, &s_hi, &s_lo, &s_bound, &x, &y, &decided})
      v->resize(2 * pairs);
  }
};

namespace {

// Whether any of n doubles is an infinity or a NaN, from their exponent bits (vectorises).
bool any_not_finite(const double* v, size_t n) {
  uint64_t special = 0;
  for (size_t i = 0; i < n; ++i)
    special |= ~std::bit_cast<uint64_t>(v[i]) & 0x7ff0000000000000ull ? 0 : 1;
  return special != 0;
}

}  // namespace

RotationOracle::RotationOracle(const RotationSpec& spec, Dtype target, EngineKind kind)
    : spec_(spec), target_(target), kind_(kind) {
  if (auto err = validate(spec)) throw std::invalid_argument(*err);
  engines_ = std::make_unique<const Engines>(spec, target);
}

RotationOracle::~RotationOracle() = default;

void RotationOracle::rotate(const RowPositions& positions, const uint64_t* tokens, uint64_t n,
                            int heads, const double* x, RotatedValues& out) const {
  const int d = spec_.table.d_model, head_dim = spec_.head_dim;
  const auto pairs = static_cast<size_t>(d / 2);
  const uint64_t stride = static_cast<uint64_t>(head_dim);
  const uint64_t per_token = static_cast<uint64_t>(heads) * stride;
  out.exact.resize(n * per_token);
  out.rounded.resize(n * per_token);
  thread_local Scratch t;
  t.resize(pairs);
  uint64_t handed = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double* in = x + i * per_token;
    for (uint64_t h = 0; h < static_cast<uint64_t>(heads); ++h)
      if (any_not_finite(in + h * stride, static_cast<size_t>(d)))
        for (int k = 0; k < d; ++k)
          if (!std::isfinite(in[h * stride + static_cast<uint64_t>(k)]))
            throw std::invalid_argument("rotation: token " + std::to_string(i) + ", head " +
                                        std::to_string(h) + ", dim " + std::to_string(k) +
                                        " is not finite");
    for (size_t j = 0; j < pairs; ++j)
      t.pos[j] = positions.of_pair(spec_.table, tokens[i], static_cast<int>(j));
    if (kind_ == EngineKind::kFast) cos_sin(t);
    for (uint64_t h = 0; h < static_cast<uint64_t>(heads); ++h) {
      const uint64_t at = i * per_token + h * stride;
      handed += rotate_head(in + h * stride, t, out.exact.data() + at, out.rounded.data() + at);
      // Pass-through dims: the input is the exact value.
      for (uint64_t k = static_cast<uint64_t>(d); k < stride; ++k) {
        out.exact[at + k] = x[at + k];
        out.rounded[at + k] = round_double_to(x[at + k], target_);
      }
    }
  }
  // Counted once per call (threads share these counters: one add per pair would bounce their
  // cache line between cores).
  stats_.rotated.fetch_add(n * static_cast<uint64_t>(heads) * static_cast<uint64_t>(d),
                           std::memory_order_relaxed);
  stats_.handed_off.fetch_add(handed, std::memory_order_relaxed);
}

// C and S of each element's (position, pair) with their bounds, when the fast engine's kernel
// covers them (fast_engine.md); else an infinite bound, which no element accepts. Computed once
// per pair, for both of its elements.
void RotationOracle::cos_sin(Scratch& t) const {
  const Engines& g = *engines_;
  const fast::TableWords& w = g.words;
  for (size_t k = 0; k < t.pos.size(); ++k) {
    const uint64_t pos = t.pos[k];
    std::array<double, 6>& cs = t.pair_cos_sin[k];  // C hi, lo, bound, S hi, lo, bound
    if ((pos == 0 || w.zero[k]) && w.attention_in_range) {
      // Angle 0 (position 0, or proportional's w_j = 0): C = A (A1's bound), S = 0 exactly.
      cs = {w.attention_hi, w.attention_lo, 0x1p-105 * std::fabs(w.attention_hi), 0, 0, 0};
    } else if (pos <= kMaxPosition && w.attention_in_range && !std::isnan(w.t0[k])) {
      const fast::Detail v = fast::evaluate_detail(static_cast<double>(pos), w.t0[k], w.t1[k],
                                                   w.t2[k], w.attention_hi, w.attention_lo);
      cs = {v.cos_hi, v.cos_lo, v.cos_bound, v.sin_hi, v.sin_lo, v.sin_bound};
    } else {
      cs = {0, 0, INFINITY, 0, 0, INFINITY};
    }
  }
  for (size_t e = 0; e < g.own.size(); ++e) {
    const std::array<double, 6>& cs = t.pair_cos_sin[static_cast<size_t>(g.pair_of[e])];
    t.c_hi[e] = cs[0], t.c_lo[e] = cs[1], t.c_bound[e] = cs[2];
    t.s_hi[e] = cs[3], t.s_lo[e] = cs[4], t.s_bound[e] = cs[5];
  }
}

// One head's rotated elements, written at their output dims of exact and rounded; returns how
// many went to MPFR.
uint64_t RotationOracle::rotate_head(const double* row, Scratch& t, double* exact,
                                     double* rounded) const {
  const Engines& g = *engines_;
  const size_t count = g.own.size();
  if (g.halves) {  // two plain copies, which vectorise
    const size_t half = count / 2;
    for (size_t e = 0; e < half; ++e) t.y[e] = row[half + e];
    for (size_t e = 0; e < half; ++e) t.y[half + e] = -row[e];
  } else {
    for (size_t e = 0; e < count; ++e) t.y[e] = g.partner_sign[e] * row[g.partner[e]];
  }
  const double* x = row;
  if (!g.identity) {
    for (size_t e = 0; e < count; ++e) t.x[e] = row[g.own[e]];
    x = t.x.data();
  }
  size_t undecided = count;
  if (kind_ == EngineKind::kFast) {
    undecided = fast_rotate_lanes({x,
                                   t.y.data(),
                                   {t.c_hi.data(), t.c_lo.data(), t.c_bound.data()},
                                   {t.s_hi.data(), t.s_lo.data(), t.s_bound.data()}},
                                  count, target_, {exact, rounded, t.decided.data()});
  } else {
    std::fill(t.decided.begin(), t.decided.end(), 0.0);
  }
  if (undecided == 0) return 0;
  uint64_t handed = 0;
  for (size_t e = 0; e < count; ++e) {
    if (t.decided[e] != 0) continue;
    // Ziv's strategy: what the bound cannot decide goes to the reference.
    RotatedElement got;
    const auto pair = static_cast<size_t>(g.pair_of[e]);
    g.mpfr.rotate(t.pos[pair], static_cast<int>(pair), &x[e], &t.y[e], 1, &got);
    exact[e] = got.exact, rounded[e] = got.rounded;
    handed += kind_ == EngineKind::kFast;
  }
  return handed;
}

}  // namespace pev::oracle
