#include "corpus.h"

#include <cmath>
#include <random>

#include "peverify/encoding/format.h"
#include "peverify/encoding/rope.h"
#include "peverify/measure/rotation_budget.h"
#include "peverify/verify/framework_cache_testutil.h"

namespace pev::bugs {
namespace {

using namespace pev::verify;

float f32(double x) { return static_cast<float>(x); }

float rounded_to_bits(float x, int bits) {
  if (bits == 0 || x == 0) return x;
  const int e = std::ilogb(x) - (bits - 1);
  return f32(std::ldexp(std::nearbyint(std::ldexp(double(x), -e)), e));
}

// One row's cos and sin per pair, as the cache `b` holds them at `pos`.
struct RowValues {
  std::vector<float> c, s;
};
RowValues row_values(const Built& b, const std::vector<float>& inv, uint64_t pos) {
  const float att = std::isnan(b.amplitude) ? f32(attention_factor(b.spec)) : f32(b.amplitude);
  RowValues v;
  for (const float w : inv) {
    const float p = rounded_to_bits(static_cast<float>(pos), b.product_bits);
    float angle = rounded_to_bits(w, b.product_bits) * p;  // position_ids.float() @ inv_freq
    angle = rounded_to_bits(f32(angle * b.angle_times), b.angle_bits);
    v.c.push_back(std::cos(angle) * att);
    v.s.push_back(std::sin(angle) * att);
  }
  return v;
}

uint64_t position_of(const Built& b, uint64_t row) {
  return b.positions.empty() ? b.spec.start + row : b.positions[row];
}

}  // namespace

std::vector<uint64_t> rounded_positions(uint64_t rows, int bits) {
  std::vector<uint64_t> out;
  for (uint64_t r = 0; r < rows; ++r)
    out.push_back(static_cast<uint64_t>(rounded_to_bits(static_cast<float>(r), bits)));
  return out;
}

std::vector<double> cache(const Built& b, uint64_t rows, Layout layout) {
  TableSpec s = b.spec;
  s.layout = layout;
  const std::vector<float> inv = verify::testutil::framework_inv_freq(b.spec);
  const int width = table_width(s);
  std::vector<double> out(rows * static_cast<uint64_t>(width), 0.0);
  for (uint64_t r = 0; r < rows; ++r) {
    if (b.unwritten && b.unwritten(r)) continue;
    const RowValues v = row_values(b, inv, position_of(b, r));
    for (int c = 0; c < width; ++c) {
      const Column col = column_at(s, c);
      out[r * width + c] = col.is_sin ? v.s[col.pair] : v.c[col.pair];
    }
  }
  return out;
}

VerifyResult verify_cache(const std::vector<double>& values, const TableSpec& declared,
                          const std::string& source, const std::vector<uint64_t>& positions,
                          const std::vector<std::pair<std::string, TableSpec>>& other_layer_types) {
  const uint64_t rows = values.size() / static_cast<uint64_t>(table_width(declared));
  VerifyOptions o;
  o.spec = declared;
  if (!positions.empty()) {
    o.positions = RowPositions{{positions}};
    o.positions_name = "positions.npy";
  }
  o.spec.rope.sequence_length = 0;
  if (o.positions)
    set_sequence_length(o.spec, *o.positions);
  else
    set_sequence_length(o.spec, consecutive_positions(o.spec, rows));
  o.source = source;
  o.other_layer_types = other_layer_types;
  o.claim = Claim::model(Dtype::kFloat32);
  o.threads = 2;
  return verify_table({"cache.npy", "built in the test", Dtype::kFloat32, rows, {}, values}, o);
}

Rotation rotate(const Built& b, uint64_t batch, uint64_t seq, uint64_t heads, int head_dim,
                int partner_offset) {
  Rotation r{batch, seq, heads, head_dim, partner_offset, {}, {}};
  const int pairs = b.spec.d_model / 2;
  const int offset = partner_offset > 0 ? partner_offset : pairs;
  const std::vector<float> inv = verify::testutil::framework_inv_freq(b.spec);
  std::mt19937 rng(20260);
  std::normal_distribution<float> normal;
  for (uint64_t t = 0; t < batch * seq; ++t) {
    const RowValues v =
        row_values(b, inv, b.positions.empty() ? b.spec.start + t % seq : b.positions[t]);
    const bool unwritten = b.unwritten && b.unwritten(t);
    for (uint64_t h = 0; h < heads; ++h) {
      std::vector<float> x(static_cast<size_t>(head_dim)), y;
      for (float& e : x) e = normal(rng);
      y = x;
      for (int j = 0; j < pairs; ++j) {
        const float xa = x[j], xb = x[j + offset];
        y[j] = xa * v.c[j] - xb * v.s[j];
        y[j + offset] = xb * v.c[j] + xa * v.s[j];
      }
      if (unwritten) std::fill(y.begin(), y.end(), 0.0f);
      r.x.insert(r.x.end(), x.begin(), x.end());
      r.y.insert(r.y.end(), y.begin(), y.end());
    }
  }
  return r;
}

VerifyRotaryResult verify_rotation(const Rotation& r, const TableSpec& declared,
                                   const std::vector<uint64_t>& positions,
                                   const std::string& source, PairConvention pairs,
                                   const std::string& compute) {
  VerifyRotaryOptions o;
  o.spec.table = declared;
  o.spec.head_dim = r.head_dim;
  o.spec.pairs = pairs;
  o.compute = *measure::parse_rotation_compute(compute);
  o.geometry = {RotaryAxes::kBatchSeqHeadsDim, r.batch, r.seq, r.heads, r.head_dim};
  o.start = declared.start;
  if (!positions.empty()) {
    o.positions = RowPositions{{positions}};
    o.positions_name = "positions.npy";
  }
  set_sequence_length(o.spec.table, token_positions(o));
  o.source = source;
  o.threads = 2;
  const auto tensor = [&r](const char* name, const std::vector<double>& v) {
    const size_t row_len = static_cast<size_t>(r.head_dim);
    return RotaryTensor{name, "built in the test", Dtype::kFloat32,
                        [&v, row_len](uint64_t first, uint64_t n, double* out) {
                          std::copy_n(v.begin() + first * row_len, n * row_len, out);
                        }};
  };
  return verify_rotary(tensor("q.npy", r.x), tensor("q_out.npy", r.y), o);
}

namespace {

// ggml-cpu's cos and sin of each pair's angle at position p (ggml_rope_cache_init): the angle by
// the recurrence theta_{j+1} = theta_j theta_scale in float, divided by the pair's factor.
void ggml_cos_sin(const TableSpec& spec, uint64_t p, const std::vector<float>& freq_factors,
                  std::vector<float>& c, std::vector<float>& s) {
  const int half = spec.d_model / 2;
  const float theta_scale = std::pow(static_cast<float>(spec.base), -2.0f / spec.d_model);
  c.resize(half), s.resize(half);
  float theta = static_cast<float>(p);
  for (int j = 0; j < half; ++j) {
    const float angle = freq_factors.empty() ? theta : theta / freq_factors[j];
    c[j] = std::cos(angle), s[j] = std::sin(angle);
    theta *= theta_scale;
  }
}

}  // namespace

std::vector<double> ggml_cache(const TableSpec& spec, uint64_t rows,
                               const std::vector<float>& freq_factors) {
  const int half = spec.d_model / 2;
  std::vector<double> out;
  out.reserve(rows * spec.d_model);
  std::vector<float> c, s;
  for (uint64_t p = 0; p < rows; ++p) {
    ggml_cos_sin(spec, p, freq_factors, c, s);
    out.insert(out.end(), c.begin(), c.begin() + half);
    out.insert(out.end(), s.begin(), s.begin() + half);
  }
  return out;
}

Rotation ggml_rotate(const TableSpec& spec, uint64_t seq, uint64_t heads, bool neox,
                     const std::vector<float>& freq_factors) {
  const int n_dims = spec.d_model, half = n_dims / 2;
  Rotation r{1, seq, heads, n_dims, 0, {}, {}};
  std::mt19937 rng(8676);
  std::normal_distribution<float> normal;
  std::vector<float> c, s;
  for (uint64_t p = 0; p < seq; ++p) {
    ggml_cos_sin(spec, p, freq_factors, c, s);
    for (uint64_t h = 0; h < heads; ++h) {
      std::vector<float> x(n_dims), y(n_dims);
      for (float& e : x) e = normal(rng);
      for (int j = 0; j < half; ++j) {
        const int a = neox ? j : 2 * j, b = neox ? j + half : 2 * j + 1;
        y[a] = x[a] * c[j] - x[b] * s[j];
        y[b] = x[a] * s[j] + x[b] * c[j];
      }
      r.x.insert(r.x.end(), x.begin(), x.end());
      r.y.insert(r.y.end(), y.begin(), y.end());
    }
  }
  return r;
}

std::vector<float> llama3_rope_freqs(const TableSpec& spec) {
  TableSpec plain = spec;
  plain.rope = RopeScaling{};
  const std::vector<float> scaled = verify::testutil::framework_inv_freq(spec);
  const std::vector<float> unscaled = verify::testutil::framework_inv_freq(plain);
  std::vector<float> out;
  for (size_t j = 0; j < scaled.size(); ++j) out.push_back(unscaled[j] / scaled[j]);
  return out;
}

}  // namespace pev::bugs
