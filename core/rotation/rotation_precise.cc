// Our precise rotation (docs/features.md §15.4): every output within one ulp of the exact
// A (x_a cos pw - x_b sin pw), certified element by element. The double path and its bound are in
// precise_rotation.h (shared with the CUDA kernel). Where the two products cancel too far for
// double to certify, the element is recomputed in __float128 (libquadmath's sincosq, 2^-112 of
// the products plus the angle's relative error e_w) and certified again; an element neither path
// certifies is counted (precise_rotation_uncertified), never hidden.
#include <quadmath.h>

#include <atomic>
#include <cmath>
#include <vector>

#include "peverify/core/precise/frequencies.h"
#include "peverify/core/rotation/precise_rotation.h"
#include "peverify/core/rotation/rotation_entries.h"

namespace pev::core::rotation_internal {
namespace {

using namespace precise_rotation;
std::atomic<uint64_t> uncertified{0}, recomputed{0};

}  // namespace

float precise_rotation_fallback(double pos, double w_hi, double w_lo, double e_w, double attention,
                                double x, double y) {
  recomputed.fetch_add(1, std::memory_order_relaxed);
  // __float128: angle pos (w_hi + w_lo) in 113 bits, sincosq within an ulp of it.
  using Quad = __float128;
  const Quad angle = static_cast<Quad>(pos) * (static_cast<Quad>(w_hi) + w_lo);
  Quad sq, cq;
  sincosq(angle, &sq, &cq);
  const Quad rq = (static_cast<Quad>(x) * cq - static_cast<Quad>(y) * sq) * attention;
  const double rd = static_cast<double>(rq);
  // Position 0 is exact (sin 0 = 0, cos 0 = 1): no angle error and no absolute term. A is the
  // double one (u relative) and rq is rounded to double (u again): 2.02u |rd|.
  const double p = attention * static_cast<double>(fabsq(x * cq) + fabsq(y * sq));
  const double angle_error =
      pos == 0 ? 0 : pos * w_hi * (e_w + 0x1p-110) * (1 + 0x1p-50) + 0x1p-110;
  const double bound_q = (attention * (std::fabs(x) + std::fabs(y)) * angle_error + p * 0x1p-110 +
                          2.02 * kU * std::fabs(rd)) *
                         (1 + 0x1p-40);
  if (!certified_f32(rd, bound_q)) uncertified.fetch_add(1, std::memory_order_relaxed);
  return static_cast<float>(rd);
}

namespace {

// One head's pairs by the double path, in a loop the compiler vectorises (no call, no branch):
// outputs stored, each pair's flag set where either output is not certified; whether any was. Pair
// j's dims are (j, j + pairs), or (2j, 2j + 1) interleaved.
template <bool kInterleaved>
inline bool rotate_head(const PairTerms* terms, int pairs, const float* x, float* o,
                        uint8_t* flags) {
  uint8_t any = 0;
  for (int j = 0; j < pairs; ++j) {
    const int a = kInterleaved ? 2 * j : j, b = kInterleaved ? 2 * j + 1 : j + pairs;
    const double xa = x[a], xb = x[b];
    double ra, rb;
    const bool ok = rotate_double(terms[j], xa, xb, ra) & rotate_double(terms[j], xb, -xa, rb);
    o[a] = static_cast<float>(ra);
    o[b] = static_cast<float>(rb);
    flags[j] = !ok;
    any |= flags[j];
  }
  return any != 0;
}

// One token's heads, then the rare uncertified pairs again through __float128. Cloned for
// x86-64-v3 and AVX-512, where the FMAs are instructions and the pairs go 4 or 8 at a time.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void rotate_token(
    const PairTerms* terms, const double* pos, const precise::DoubleDouble* w, double e_w,
    double attention, bool interleaved, int pairs, int heads, int hd, const float* in, float* o,
    uint8_t* flags) {
  for (int h = 0; h < heads; ++h) {
    const float* xh = in + static_cast<uint64_t>(h) * hd;
    float* oh = o + static_cast<uint64_t>(h) * hd;
    const bool any = interleaved ? rotate_head<true>(terms, pairs, xh, oh, flags)
                                 : rotate_head<false>(terms, pairs, xh, oh, flags);
    for (int j = 0; any && j < pairs; ++j) {
      if (!flags[j]) continue;
      const int a = interleaved ? 2 * j : j, b = interleaved ? 2 * j + 1 : j + pairs;
      const double xa = xh[a], xb = xh[b];
      oh[a] = precise_rotation_fallback(pos[j], w[j].hi, w[j].lo, e_w, attention, xa, xb);
      oh[b] = precise_rotation_fallback(pos[j], w[j].hi, w[j].lo, e_w, attention, xb, -xa);
    }
    for (int k = 2 * pairs; k < hd; ++k) oh[k] = xh[k];
  }
}

// Every pair's A cos, A sin and angle error at one token: a loop over the pairs that GCC
// vectorises in the clones (direct_sincos is selects and FMAs only).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void token_terms(
    const double* pos, const precise::DoubleDouble* w, double e_w, double attention, int pairs,
    PairTerms* out) {
  for (int j = 0; j < pairs; ++j) out[j] = pair_terms(pos[j], w[j].hi, w[j].lo, e_w, attention);
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
  std::vector<uint8_t> flags(pairs);
  std::vector<double> pos(pairs);
  const uint64_t stride = static_cast<uint64_t>(heads) * static_cast<uint64_t>(hd);
  for (uint64_t i = 0; i < n; ++i) {
    for (int j = 0; j < pairs; ++j)
      pos[j] = static_cast<double>(positions.of_pair(spec.table, tokens[i], j));
    token_terms(pos.data(), w.data(), e_w, attention, pairs, terms.data());
    rotate_token(terms.data(), pos.data(), w.data(), e_w, attention,
                 spec.pairs == PairConvention::kInterleaved, pairs, heads, hd, in + i * stride,
                 o + i * stride, flags.data());
  }
}

}  // namespace pev::core::rotation_internal
