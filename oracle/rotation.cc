#include "peverify/oracle/rotation.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "peverify/oracle/fast_engine_kernel.h"
#include "peverify/oracle/rotation_engines.h"

namespace pev::oracle {

struct RotationOracle::Engines {
  Engines(const TableSpec& table, Dtype target)
      : mpfr(table, target), words(fast::table_words(table)) {}
  MpfrRotation mpfr;
  fast::TableWords words;  // the fast engine's per-pair words and A (fast_engine.md, R0, A1)
};

RotationOracle::RotationOracle(const RotationSpec& spec, Dtype target, EngineKind kind)
    : spec_(spec), target_(target), kind_(kind) {
  if (auto err = validate(spec)) throw std::invalid_argument(*err);
  engines_ = std::make_unique<const Engines>(spec.table, target);
}

RotationOracle::~RotationOracle() = default;

void RotationOracle::rotate(const RowPositions& positions, const uint64_t* tokens, uint64_t n,
                            int heads, const double* x, RotatedValues& out) const {
  const int d = spec_.table.d_model, head_dim = spec_.head_dim;
  const uint64_t stride = static_cast<uint64_t>(head_dim);
  const uint64_t per_token = static_cast<uint64_t>(heads) * stride;
  out.exact.resize(n * per_token);
  out.rounded.resize(n * per_token);
  uint64_t handed = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double* in = x + i * per_token;
    for (uint64_t h = 0; h < static_cast<uint64_t>(heads); ++h)
      for (int k = 0; k < d; ++k)
        if (!std::isfinite(in[h * stride + static_cast<uint64_t>(k)]))
          throw std::invalid_argument("rotation: token " + std::to_string(i) + ", head " +
                                      std::to_string(h) + ", dim " + std::to_string(k) +
                                      " is not finite");
    for (int j = 0; j < d / 2; ++j)
      handed += rotate_pair(positions.of_pair(spec_.table, tokens[i], j), j, in, heads, stride,
                            out.exact.data() + i * per_token, out.rounded.data() + i * per_token);
    // Pass-through dims: the input is the exact value.
    for (uint64_t h = 0; h < static_cast<uint64_t>(heads); ++h)
      for (uint64_t k = static_cast<uint64_t>(d); k < stride; ++k) {
        const uint64_t at = i * per_token + h * stride + k;
        out.exact[at] = x[at];
        out.rounded[at] = round_double_to(x[at], target_);
      }
  }
  stats_.rotated.fetch_add(n * static_cast<uint64_t>(heads) * static_cast<uint64_t>(d),
                           std::memory_order_relaxed);
  stats_.handed_off.fetch_add(handed, std::memory_order_relaxed);
}

uint64_t RotationOracle::rotate_pair(uint64_t pos, int pair, const double* x, int heads,
                                     uint64_t stride, double* exact, double* rounded) const {
  const auto [a, b] = rotated_dims(spec_, pair);
  // Element 2h is out_a = x_a C - x_b S of head h, element 2h + 1 is out_b = x_b C - (-x_a) S.
  const auto count = static_cast<size_t>(2 * heads);
  thread_local std::vector<double> xs, ys;
  thread_local std::vector<RotatedElement> got;
  xs.resize(count);
  ys.resize(count);
  got.resize(count);
  for (size_t h = 0; h < static_cast<size_t>(heads); ++h) {
    const double xa = x[h * stride + static_cast<size_t>(a)];
    const double xb = x[h * stride + static_cast<size_t>(b)];
    xs[2 * h] = xa;
    ys[2 * h] = xb;
    xs[2 * h + 1] = xb;
    ys[2 * h + 1] = -xa;
  }
  uint64_t handed = 0;
  if (kind_ == EngineKind::kMpfr) {
    engines_->mpfr.rotate(pos, pair, xs.data(), ys.data(), static_cast<int>(count), got.data());
  } else {
    const fast::TableWords& w = engines_->words;
    const auto k = static_cast<size_t>(pair);
    // C and S with their bounds, when the fast engine's kernel covers them (fast_engine.md).
    std::optional<std::pair<BoundedDD, BoundedDD>> cs;
    // Angle 0 (position 0, or proportional's w_j = 0): C = A (A1's bound), S = 0 exactly.
    if ((pos == 0 || w.zero[k]) && w.attention_in_range) {
      cs = {{w.attention_hi, w.attention_lo, 0x1p-105 * std::fabs(w.attention_hi)}, {}};
    } else if (pos <= kMaxPosition && w.attention_in_range && !std::isnan(w.t0[k])) {
      const fast::Detail e = fast::evaluate_detail(static_cast<double>(pos), w.t0[k], w.t1[k],
                                                   w.t2[k], w.attention_hi, w.attention_lo);
      cs = {{e.cos_hi, e.cos_lo, e.cos_bound}, {e.sin_hi, e.sin_lo, e.sin_bound}};
    }
    thread_local std::vector<unsigned char> decided;
    decided.assign(count, 0);
    if (cs)
      fast_rotate_all(xs.data(), ys.data(), count, cs->first, cs->second, target_, got.data(),
                      decided.data());
    for (size_t i = 0; i < count; ++i) {
      if (decided[i]) continue;
      // Ziv's strategy: what the bound cannot decide goes to the reference.
      engines_->mpfr.rotate(pos, pair, &xs[i], &ys[i], 1, &got[i]);
      ++handed;
    }
  }
  // Written where the output convention puts the pair (DeepSeek: read interleaved, written in
  // halves).
  const auto [out_a, out_b] = output_dims(spec_, pair);
  for (size_t h = 0; h < static_cast<size_t>(heads); ++h) {
    const size_t at_a = h * stride + static_cast<size_t>(out_a);
    const size_t at_b = h * stride + static_cast<size_t>(out_b);
    exact[at_a] = got[2 * h].exact;
    rounded[at_a] = got[2 * h].rounded;
    exact[at_b] = got[2 * h + 1].exact;
    rounded[at_b] = got[2 * h + 1].rounded;
  }
  // Counted once per call of rotate (threads share these counters: one add per pair would
  // bounce their cache line between cores).
  return handed;
}

}  // namespace pev::oracle
