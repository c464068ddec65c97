// Our precise rotation (docs/design.md §15.4): every output within one ulp of the exact
// A (x_a cos pw - x_b sin pw), certified element by element. The double path and its bound are in
// precise_rotation.h (shared with the CUDA kernel). Where the two products cancel too far for
// double to certify, the element is recomputed in __float128 (libquadmath's sincosq, 2^-112 of
// the products plus the angle's relative error e_w) and certified again; an element neither path
// certifies is counted (precise_rotation_uncertified), never hidden.
#include <quadmath.h>

#include <atomic>
#include <cmath>
#include <vector>

#include "core/precise/frequencies.h"
#include "core/rotation/precise_rotation.h"
#include "core/rotation/rotation_entries.h"

namespace pev::core::rotation_internal {
namespace {

using namespace precise_rotation;
std::atomic<uint64_t> uncertified{0}, recomputed{0};

struct PairInputs {
  double pos, w_hi, w_lo, attention, e_w;
};

}  // namespace

float precise_rotation_fallback(double pos, double w_hi, double w_lo, double e_w, double attention,
                                double x, double y) {
  const PairInputs t{pos, w_hi, w_lo, attention, e_w};
  recomputed.fetch_add(1, std::memory_order_relaxed);
  // __float128: angle pos (w_hi + w_lo) in 113 bits, sincosq within an ulp of it.
  using Quad = __float128;
  const Quad angle = static_cast<Quad>(t.pos) * (static_cast<Quad>(t.w_hi) + t.w_lo);
  Quad sq, cq;
  sincosq(angle, &sq, &cq);
  const Quad rq = (static_cast<Quad>(x) * cq - static_cast<Quad>(y) * sq) * t.attention;
  const double rd = static_cast<double>(rq);
  // Position 0 is exact (sin 0 = 0, cos 0 = 1): no angle error and no absolute term.
  const double p = t.attention * static_cast<double>(fabsq(x * cq) + fabsq(y * sq));
  const double angle_error =
      t.pos == 0 ? 0 : t.pos * t.w_hi * (t.e_w + 0x1p-110) * (1 + 0x1p-50) + 0x1p-110;
  const double bound_q = (t.attention * (std::fabs(x) + std::fabs(y)) * angle_error + p * 0x1p-110 +
                          kU * std::fabs(rd) * 1.01) *
                         (1 + 0x1p-40);
  if (!certified_f32(rd, bound_q)) uncertified.fetch_add(1, std::memory_order_relaxed);
  return static_cast<float>(rd);
}

namespace {

// The element r = x c - y s, certified: the double path, else __float128.
float rotate_one(const PairTerms& terms, const PairInputs& t, double x, double y) {
  double r;
  if (rotate_double(terms, x, y, r)) return static_cast<float>(r);
  return precise_rotation_fallback(t.pos, t.w_hi, t.w_lo, t.e_w, t.attention, x, y);
}

}  // namespace

uint64_t precise_rotation_uncertified() { return uncertified.load(); }
uint64_t precise_rotation_recomputed() { return recomputed.load(); }

void apply_precise_f32(const RotationImplementation&, const RotationSpec& spec,
                       const RowPositions& positions, const uint64_t* tokens, uint64_t n, int heads,
                       const void* x, void* out) {
  const int pairs = spec.table.d_model / 2, hd = spec.head_dim;
  const std::vector<precise::DoubleDouble> w = precise::double_double_frequencies(spec.table);
  const double e_w = precise::frequency_error_bound(spec.table);
  const double attention = precise::attention_in_double(spec.table);
  const float* in = static_cast<const float*>(x);
  float* o = static_cast<float*>(out);
  std::vector<PairTerms> terms(pairs);
  std::vector<PairInputs> t(pairs);
  for (uint64_t i = 0; i < n; ++i) {
    for (int j = 0; j < pairs; ++j) {
      const double pos = static_cast<double>(positions.of_pair(spec.table, tokens[i], j));
      t[j] = {pos, w[j].hi, w[j].lo, attention, e_w};
      terms[j] = pair_terms(pos, w[j].hi, w[j].lo, e_w, attention);
    }
    for (int h = 0; h < heads; ++h) {
      const uint64_t base = (i * heads + h) * static_cast<uint64_t>(hd);
      for (int j = 0; j < pairs; ++j) {
        const auto [a, b] = rotated_dims(spec, j);
        const double xa = in[base + a], xb = in[base + b];
        o[base + a] = rotate_one(terms[j], t[j], xa, xb);
        o[base + b] = rotate_one(terms[j], t[j], xb, -xa);
      }
      for (int k = spec.table.d_model; k < hd; ++k) o[base + k] = in[base + k];
    }
  }
}

}  // namespace pev::core::rotation_internal
