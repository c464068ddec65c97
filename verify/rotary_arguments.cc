// verify-rotary's arguments (internal to verify): the axes and geometry of a tensor,
// what the command line and Python say resolved into the options in one place, and where each
// token sits.
#include <fmt/format.h>

#include <algorithm>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/request.h"
#include "peverify/verify/verify_rotary.h"

namespace pev::verify {

std::string_view name_of(RotaryAxes a) {
  switch (a) {
    case RotaryAxes::kTokensHeadsDim:
      return "tokens,heads,dim";
    case RotaryAxes::kBatchSeqHeadsDim:
      return "batch,seq,heads,dim";
    case RotaryAxes::kBatchHeadsSeqDim:
      return "batch,heads,seq,dim";
  }
  return "?";
}

std::optional<RotaryAxes> parse_rotary_axes(std::string_view name) {
  for (RotaryAxes a :
       {RotaryAxes::kTokensHeadsDim, RotaryAxes::kBatchSeqHeadsDim, RotaryAxes::kBatchHeadsSeqDim})
    if (name == name_of(a)) return a;
  return std::nullopt;
}

TensorGeometry::Place TensorGeometry::place(uint64_t row) const {
  switch (axes) {
    case RotaryAxes::kTokensHeadsDim:
    case RotaryAxes::kBatchSeqHeadsDim:
      return {row / heads / seq, row / heads % seq, row % heads};
    case RotaryAxes::kBatchHeadsSeqDim:
      return {row / (heads * seq), row % seq, row / seq % heads};
  }
  return {0, 0, 0};
}

TensorGeometry geometry_of(const std::vector<uint64_t>& shape, RotaryAxes axes) {
  TensorGeometry g;
  g.axes = axes;
  const auto bad = [&](const std::string& why) {
    return ConfigError(fmt::format("a tensor of shape [{}] {}", fmt::join(shape, ", "), why));
  };
  const size_t rank = shape.size();
  if (rank < 2 || rank > 4) throw bad("is not [tokens, head_dim] or of rank 3 or 4");
  if (rank == 4 && axes == RotaryAxes::kTokensHeadsDim)
    throw bad("has 4 axes: say --axes batch,seq,heads,dim or batch,heads,seq,dim");
  if (rank < 4 && axes != RotaryAxes::kTokensHeadsDim)
    throw bad(fmt::format("has {} axes, not the 4 of {}", rank, name_of(axes)));
  g.head_dim = static_cast<int>(std::min<uint64_t>(shape.back(), uint64_t{1} << 20));
  if (rank == 2) {
    g.seq = shape[0];
  } else if (rank == 3) {
    g.seq = shape[0];
    g.heads = shape[1];
  } else if (axes == RotaryAxes::kBatchSeqHeadsDim) {
    g.batch = shape[0], g.seq = shape[1], g.heads = shape[2];
  } else {
    g.batch = shape[0], g.heads = shape[1], g.seq = shape[2];
  }
  if (g.rows() == 0 || g.head_dim == 0) throw bad("is empty");
  return g;
}

VerifyRotaryOptions resolve_rotary(RotaryArguments a) {
  VerifyRotaryOptions o;
  const std::string& f = a.flag;
  o.axes_assumed = a.axes.empty();
  const auto axes = a.axes.empty()
                        ? std::optional(a.shape.size() == 4 ? RotaryAxes::kBatchHeadsSeqDim
                                                            : RotaryAxes::kTokensHeadsDim)
                        : parse_rotary_axes(a.axes);
  if (!axes)
    throw ConfigError(f +
                      "axes must be tokens,heads,dim, batch,seq,heads,dim or batch,heads,seq,dim");
  o.geometry = geometry_of(a.shape, *axes);
  RotationSpec& spec = o.spec;
  spec.head_dim = o.geometry.head_dim;
  spec.table.layout = Layout::kRopeCosSin;
  spec.table.d_model = spec.head_dim;
  apply_rotary(a.rotary, spec.table);
  if (a.rotary.model && a.rotary.model->head_dim != spec.head_dim)
    throw ConfigError(fmt::format("{} has head_dim {}, the tensors' last axis is {}",
                                  a.rotary.model_name, a.rotary.model->head_dim, spec.head_dim));
  const auto pairs = parse_pair_convention(a.pairs);
  if (!pairs)
    throw ConfigError(f + "pairs must be halves (rotate-half, NeoX) or interleaved (GPT-J)");
  spec.pairs = *pairs;
  if (!a.output_pairs.empty()) {
    const auto output = parse_pair_convention(a.output_pairs);
    if (!output)
      throw ConfigError(f + "output-pairs must be halves (rotate-half, NeoX) or interleaved " +
                        "(GPT-J), got \"" + a.output_pairs + "\"");
    spec.output_pairs = *output;
  }
  o.start = non_negative(a.start, (f + "start").c_str());
  if (a.positions) {
    if (a.start != 0)
      throw ConfigError(f + "start and " + f + "positions both say where the tokens are");
    o.positions = std::move(a.positions);
    o.positions_name = a.positions_name;
    set_sequence_length(spec.table, *o.positions);
  } else {
    set_sequence_length(spec.table, o.start + o.geometry.seq);
  }
  if (auto err = validate(spec)) throw ConfigError(*err);
  const auto compute = measure::parse_rotation_compute(a.compute);
  if (!compute)
    throw ConfigError(f + "compute must be float32, float32-fma, bfloat16, float64 or ggml");
  o.compute = *compute;
  o.claim = a.claim;
  o.source = rotary_source(a.rotary);
  o.other_layer_types = layer_type_specs(a.rotary, spec.table);
  o.threads = a.threads;
  return o;
}

RowPositions token_positions(const VerifyRotaryOptions& o) {
  const TensorGeometry& g = o.geometry;
  const uint64_t tokens = g.batch * g.seq;
  RowPositions p;
  if (!o.positions) {
    p.streams.assign(1, std::vector<uint64_t>(tokens));
    for (uint64_t t = 0; t < tokens; ++t) p.streams[0][t] = o.start + t % g.seq;
    return p;
  }
  const uint64_t n = o.positions->rows();
  if (n != tokens && n != g.seq)
    throw ConfigError(fmt::format(
        "{}: {} position ids for {} tokens ({} sequences of {}): give one per token or one per "
        "sequence index",
        o.positions_name, n, tokens, g.batch, g.seq));
  p.streams.assign(o.positions->streams.size(), std::vector<uint64_t>(tokens));
  for (size_t s = 0; s < p.streams.size(); ++s)
    for (uint64_t t = 0; t < tokens; ++t)
      p.streams[s][t] = o.positions->streams[s][n == tokens ? t : t % g.seq];
  return p;
}

}  // namespace pev::verify
