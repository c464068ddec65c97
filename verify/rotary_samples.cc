// The rotation diagnosis's sample: tokens of both tensors, and each head as the read-back takes
// it.
#include <algorithm>
#include <cmath>

#include "peverify/encoding/format.h"
#include "peverify/verify/diagnosis.h"
#include "peverify/verify/diagnosis_samples.h"

namespace pev::verify::diagnosis {
namespace {

// Appends every head of the token at (batch row b, sequence index seq) to `dst`.
void read_token(const RotaryTensor& tensor, const TensorGeometry& g, uint64_t b, uint64_t seq,
                std::vector<double>& dst) {
  const size_t row_len = static_cast<size_t>(g.head_dim);
  dst.resize(dst.size() + g.heads * row_len);
  double* at = dst.data() + dst.size() - g.heads * row_len;
  if (g.axes == RotaryAxes::kBatchHeadsSeqDim)
    for (uint64_t h = 0; h < g.heads; ++h) tensor.read(g.row(b, seq, h), 1, at + h * row_len);
  else
    tensor.read(g.row(b, seq, 0), g.heads, at);
}

// One head of one token as the read-back takes it: in each pair, A cos = (x_a y_a + x_b y_b) /
// |x|^2 and A sin = (x_a y_b - x_b y_a) / |x|^2, the products' and the output's rounding relative
// to |x|.
readback::Row observed_head(const double* x, const double* y, const RotationSpec& spec,
                            uint64_t declared, uint64_t index, double u, double amplitude) {
  readback::Row r{declared, index, {}, {}, 4 * u * std::max(amplitude, 1.0)};
  for (int j = 0; j < spec.table.d_model / 2; ++j) {
    const auto [a, b] = rotated_dims(spec, j);
    const auto [ya, yb] = output_dims(spec, j);
    const double norm = x[a] * x[a] + x[b] * x[b];
    r.c.push_back(norm > 0 ? (x[a] * y[ya] + x[b] * y[yb]) / norm : NAN);
    r.s.push_back(norm > 0 ? (x[a] * y[yb] - x[b] * y[ya]) / norm : NAN);
  }
  return r;
}

}  // namespace

RotarySample sample_tokens(const RotaryTensor& input, const RotaryTensor& output,
                           const VerifyRotaryOptions& o, const VerifyRotaryResult& failed) {
  const TensorGeometry& g = o.geometry;
  const RowPositions all = token_positions(o);
  const uint64_t tokens = g.batch * g.seq;
  RotarySample s;
  s.input_dtype = input.dtype, s.output_dtype = output.dtype;
  s.positions_end = all.max_position() + 1;
  s.positions.streams.resize(all.streams.size());
  s.first_batch_row.streams.resize(all.streams.size());
  std::vector<uint64_t> worst;  // the worst elements' tokens
  for (const properties::PropertyVerdict& v : failed.verdicts)
    for (const properties::Finding& f : v.worst)
      if (f.row) worst.push_back(g.token(*f.row));
  for (const uint64_t first : diagnosis::sampled_blocks(tokens, worst)) {
    for (uint64_t t = first; t < std::min(tokens, first + diagnosis::kBlockRows); ++t) {
      const uint64_t b = t / g.seq, seq = t % g.seq;
      for (size_t k = 0; k < all.streams.size(); ++k) {
        s.positions.streams[k].push_back(all.streams[k][t]);
        s.first_batch_row.streams[k].push_back(all.streams[k][seq]);
      }
      s.seq_index.push_back(seq);
      read_token(input, g, b, seq, s.x);
      read_token(output, g, b, seq, s.y);
    }
    s.block_ends.push_back(s.tokens());
  }
  return s;
}

readback::Observations observe(const RotarySample& sample, const VerifyRotaryOptions& o) {
  readback::Observations obs;
  if (sample.positions.stream_count() != 1) return obs;
  const size_t row_len = static_cast<size_t>(o.spec.head_dim);
  const double u = std::max(unit_roundoff(sample.input_dtype), unit_roundoff(sample.output_dtype));
  for (int j = 0; j < o.spec.table.d_model / 2; ++j)
    obs.frequencies.push_back(frequency(o.spec.table, j));
  obs.amplitude = attention_factor(o.spec.table);
  for (size_t row = 0; row < sample.x.size() / row_len; ++row) {
    const uint64_t token = row / o.geometry.heads;
    obs.rows.push_back(observed_head(&sample.x[row * row_len], &sample.y[row * row_len], o.spec,
                                     sample.positions.streams[0][token], token, u, obs.amplitude));
  }
  return obs;
}
std::function<std::optional<bool>(uint64_t)> unrotated_probe(const RotaryTensor& input,
                                                             const RotaryTensor& output,
                                                             const VerifyRotaryOptions& o,
                                                             const readback::Observations& obs) {
  if (o.positions || obs.rows.empty()) return {};
  return [&input, &output, &o, &obs](uint64_t position) -> std::optional<bool> {
    if (position < o.start || position - o.start >= o.geometry.seq) return std::nullopt;
    std::vector<double> x, y;
    read_token(input, o.geometry, 0, position - o.start, x);
    read_token(output, o.geometry, 0, position - o.start, y);
    const double u = std::max(unit_roundoff(input.dtype), unit_roundoff(output.dtype));
    bool unrotated = true;
    for (uint64_t h = 0; h < o.geometry.heads; ++h) {
      const size_t at = h * static_cast<size_t>(o.geometry.head_dim);
      const readback::Row r = observed_head(&x[at], &y[at], o.spec, position, 0, u, obs.amplitude);
      unrotated = unrotated && readback::read_row(r, obs).state == readback::RowState::kIdentity;
    }
    return unrotated;
  };
}

}  // namespace pev::verify::diagnosis
