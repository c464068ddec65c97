// verify-rotary's diagnosis (docs/features.md §15.4): sampled tokens of both tensors, every head of
// each, gathered into a small tensor at their own positions, and judged by verify_rotary itself
// under each declaration that differs from the user's in one field.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "peverify/encoding/format.h"
#include "peverify/verify/diagnosis.h"
#include "peverify/verify/diagnosis_samples.h"
#include "peverify/verify/readback.h"

namespace pev::verify {
namespace {

using diagnosis::Alternative;
using diagnosis::RotarySample;

// One declaration to try: the user's with one field changed, and the sample it is judged on (the
// user's, or one whose positions or pair order the alternative changes).
struct RotaryCandidate {
  Alternative said;
  VerifyRotaryOptions options;
  std::optional<RowPositions> positions;  // other positions for the sampled tokens
  bool inverse = false;  // the kernel rotates by minus the angle: judged with each pair swapped
};

// The sampled elements failing under `o`: outside the rotation's budget, or a pass-through
// changed.
struct SampleFailures {
  uint64_t elements = 0, tokens = 0;
};
SampleFailures judge_sample(const RotarySample& s, uint64_t first, uint64_t end,
                            VerifyRotaryOptions o, const RowPositions& positions, bool inverse) {
  const uint64_t heads = o.geometry.heads;
  const size_t token_len = heads * static_cast<size_t>(o.geometry.head_dim);
  std::vector<double> x(s.x.begin() + first * token_len, s.x.begin() + end * token_len);
  std::vector<double> y(s.y.begin() + first * token_len, s.y.begin() + end * token_len);
  if (inverse)  // out_a = x_a c + x_b s is the forward rotation of the pair read as (b, a)
    for (int j = 0; j < o.spec.table.d_model / 2; ++j) {
      const auto [a, b] = rotated_dims(o.spec, j);
      const auto [out_a, out_b] = output_dims(o.spec, j);
      for (size_t row = 0; row < x.size() / o.spec.head_dim; ++row) {
        std::swap(x[row * o.spec.head_dim + a], x[row * o.spec.head_dim + b]);
        std::swap(y[row * o.spec.head_dim + out_a], y[row * o.spec.head_dim + out_b]);
      }
    }
  o.geometry = {RotaryAxes::kTokensHeadsDim, 1, end - first, heads, o.geometry.head_dim};
  o.positions = RowPositions{};
  for (const std::vector<uint64_t>& stream : positions.streams)
    o.positions->streams.emplace_back(stream.begin() + first, stream.begin() + end);
  o.start = 0;
  o.diagnose = false;
  const auto reader = [](const std::vector<double>& v, size_t row_len) {
    return [&v, row_len](uint64_t row, uint64_t n, double* out) {
      std::copy_n(v.data() + row * row_len, n * row_len, out);
    };
  };
  // The tensors' dtypes, as their budgets need: the sample holds their values, widened exactly.
  const RotaryTensor in{"sample", "", s.input_dtype, reader(x, o.spec.head_dim)};
  const RotaryTensor out{"sample", "", s.output_dtype, reader(y, o.spec.head_dim)};
  const VerifyRotaryResult r = verify_rotary(in, out, o);
  SampleFailures f;
  f.elements = static_cast<uint64_t>(r.verdicts[0].figures.at("outside_budget") +
                                     r.verdicts[1].figures.at("changed"));
  f.tokens = r.failing_tokens;
  return f;
}

// A candidate: the declared options, one field about to change, as the diagnosis will say it.
// `declared` holds no ids (judge_sample gives each candidate the sample's): a copy of every
// token's ids per candidate would be tens of MB at 131072 M-RoPE tokens.
RotaryCandidate candidate(const VerifyRotaryOptions& declared, std::string cause,
                          std::string detail, std::vector<std::string> flags) {
  return {{std::move(cause), std::move(detail), std::move(flags)}, declared, {}};
}

// pairing: the other convention of the input, the output or both (DeepSeek reads interleaved
// pairs and writes them in halves); sign: the inverse rotation.
void pairing_and_sign(const VerifyRotaryOptions& o, std::vector<RotaryCandidate>& out) {
  const RotationSpec& s = o.spec;
  const PairConvention in = s.pairs, outs = output_convention(s);
  for (Pairing& p : other_pairings(s)) {
    RotaryCandidate c =
        candidate(o, "pairing",
                  fmt::format("the kernel's pairs are {} in and {} out, not {} in and {} out",
                              name_of(p.pairs), name_of(p.output), name_of(in), name_of(outs)),
                  std::move(p.flags));
    c.options.spec.pairs = p.pairs;
    c.options.spec.output_pairs = p.output;
    out.push_back(std::move(c));
  }
  RotaryCandidate c = candidate(o, "sign",
                                "the kernel rotates by minus the angle (sin's sign flipped: the "
                                "inverse rotation); no declaration states it, the kernel is wrong",
                                {});
  c.inverse = true;
  out.push_back(std::move(c));
}

// The spec's alternatives both diagnoses try (diagnosis::spec_alternatives), the sample's tokens
// judged at their own positions.
// What the read-back read from the sample (verify/readback.h); no rows for M-RoPE.
struct SampleReading {
  readback::Observations observed;
  std::optional<readback::ReadBack> read_back;
  std::function<std::optional<bool>(uint64_t)> unrotated_at;
};

void spec_candidates(const VerifyRotaryOptions& o, bool ids_given, const RotarySample& sample,
                     const SampleReading& reading, std::vector<RotaryCandidate>& out) {
  const RotationSpec& s = o.spec;
  diagnosis::DeclaredSpec d;
  d.spec = s.table;
  d.spec.start = o.start;
  d.ids = &sample.positions;
  d.ids_given = ids_given;
  d.ids_name = o.positions_name;
  d.positions_end = sample.positions_end;
  d.from_config = !o.source.empty();
  d.other_layer_types = &o.other_layer_types;
  d.head_dim = s.head_dim;
  if (reading.read_back) {
    d.estimated_shift = diagnosis::shift_of_rows(reading.observed, *reading.read_back);
    d.observed = &reading.observed;
    d.read_back = &*reading.read_back;
  }
  d.declared_positions = &sample.positions;
  d.unrotated_at = reading.unrotated_at;
  if (ids_given)
    d.global_position = [&sample, &o](uint64_t i) { return o.start + sample.seq_index[i]; };
  d.width_flag = "--rotary-dim";
  d.rows = "tokens";
  for (diagnosis::SpecAlternative& a : diagnosis::spec_alternatives(d)) {
    RotaryCandidate c{std::move(a.said), o, std::move(a.ids)};
    c.options.spec.table = std::move(a.spec);
    c.options.spec.table.start = s.table.start;
    out.push_back(std::move(c));
  }
}

// rotary-dim: all, half or a quarter of the head rotating, where the declaration says otherwise.
void rotary_dims(const VerifyRotaryOptions& o, std::vector<RotaryCandidate>& out) {
  const RotationSpec& s = o.spec;
  if (!s.table.rope.mrope_section.empty()) return;
  for (const int d : {s.head_dim, s.head_dim / 2, s.head_dim / 4}) {
    if (d == s.table.d_model || d < 2 || d % 2) continue;
    RotaryCandidate c = candidate(
        o, "rotary-dim",
        fmt::format("{} of the head's {} dims rotate, not {}", d, s.head_dim, s.table.d_model),
        {fmt::format("--rotary-dim {}", d)});
    c.options.spec.table.d_model = d;
    out.push_back(std::move(c));
  }
}

// batch-row-0: every batch row rotated with batch row 0's positions (Liger#464), where the rows'
// positions differ.
void first_batch_row(const VerifyRotaryOptions& o, const RotarySample& sample,
                     std::vector<RotaryCandidate>& out) {
  if (sample.first_batch_row.streams == sample.positions.streams) return;
  RotaryCandidate c = candidate(o, "batch-row-0",
                                "every batch row is rotated with batch row 0's positions (as "
                                "Liger#464: the kernel indexed the positions by the sequence "
                                "alone); no declaration states it",
                                {});
  c.positions = sample.first_batch_row;
  out.push_back(std::move(c));
}

// compute: looser claims, tightest first, tried after every structural cause, and only where
// the output carries the looser computation's signature (verify/readback.h).
void looser_claims(const VerifyRotaryOptions& o, const SampleReading& reading,
                   std::vector<RotaryCandidate>& out) {
  const auto signature = [&](Dtype t) {
    // Where nothing was read back (M-RoPE's three streams) the claim is tried unchecked.
    return !reading.read_back ||
           readback::has_signature_of(reading.observed, *reading.read_back, t);
  };
  const auto loosen = [&](Claim::Kind claim, const char* compute, std::vector<std::string> flags,
                          std::string detail) {
    RotaryCandidate c = candidate(o, "compute", std::move(detail), std::move(flags));
    c.options.claim = claim;
    c.options.compute = *measure::parse_rotation_compute(compute);
    c.said.loosens_claim = true;
    out.push_back(std::move(c));
  };
  if (o.claim != Claim::Kind::kModel && signature(Dtype::kFloat32))
    loosen(Claim::Kind::kModel, "float32", {"--budget model"},
           "the output meets the model budget of a float32 kernel, not the claimed one");
  if (o.claim == Claim::Kind::kModel && o.compute.products == Dtype::kFloat32 &&
      !o.compute.pair_recurrence && signature(Dtype::kFloat32)) {
    RotaryCandidate c = candidate(o, "recurrence",
                                  "the output meets a float32 kernel's model with the angle by a "
                                  "recurrence over pairs (ggml's theta_{j+1} = theta_j "
                                  "theta_scale, llama.cpp's rope): honest arithmetic whose pair j "
                                  "carries j more roundings",
                                  {"--compute ggml"});
    c.options.compute = *measure::parse_rotation_compute("ggml");
    c.said.loosens_claim = true;
    out.push_back(std::move(c));
  }
  // bfloat16: Hugging Face's bfloat16 path (the cache and every product rounded), where the
  // output carries bfloat16's errors in most pairs.
  if (o.compute.name != "bfloat16" && signature(Dtype::kBFloat16))
    loosen(Claim::Kind::kModel, "bfloat16",
           o.claim == Claim::Kind::kModel
               ? std::vector<std::string>{"--compute bfloat16"}
               : std::vector<std::string>{"--budget model", "--compute bfloat16"},
           "the output meets the model budget of a bfloat16 computation (the cache and every "
           "product rounded to bfloat16), not the claimed one");
}

std::vector<RotaryCandidate> candidates(const VerifyRotaryOptions& o, const RotarySample& sample,
                                        const SampleReading& reading) {
  VerifyRotaryOptions declared = o;
  declared.positions.reset();
  std::vector<RotaryCandidate> out;
  pairing_and_sign(declared, out);
  first_batch_row(declared, sample, out);
  spec_candidates(declared, o.positions.has_value(), sample, reading, out);
  rotary_dims(declared, out);
  looser_claims(declared, reading, out);
  return out;
}

// "pos 3000 head 2 dim 10, ...".
std::string places(const VerifyRotaryResult& r) {
  return diagnosis::first_places(r.verdicts, [&](const properties::Finding& f) {
    const TensorGeometry::Place p = r.options.geometry.place(f.row.value_or(0));
    return fmt::format("pos {} head {} dim {}", f.pos, p.head, f.column);
  });
}

Diagnosis isolated(const VerifyRotaryResult& r, const std::string& tried) {
  Diagnosis d;
  d.cause = diagnosis::documented("isolated");
  d.detail = fmt::format("failing elements: rotation {:.0f}, pass-through {:.0f} (at {}); {}",
                         r.verdicts[0].figures.at("outside_budget"),
                         r.verdicts[1].figures.at("changed"), places(r), tried);
  return d;
}

// unwritten: the failing tokens' outputs are all zeros (never written, as mlx#3949) and every
// other sampled token passes as declared.
std::optional<Diagnosis> unwritten(const RotarySample& s, const VerifyRotaryOptions& o,
                                   uint64_t failing) {
  const size_t token_len = o.geometry.heads * static_cast<size_t>(o.spec.head_dim);
  RotarySample written = s;
  written.x.clear(), written.y.clear();
  for (std::vector<uint64_t>& stream : written.positions.streams) stream.clear();
  std::vector<uint64_t> zero_positions;
  for (uint64_t t = 0; t < s.tokens(); ++t) {
    const auto y = s.y.begin() + static_cast<std::ptrdiff_t>(t * token_len);
    if (std::all_of(y, y + static_cast<std::ptrdiff_t>(token_len),
                    [](double v) { return v == 0; })) {
      zero_positions.push_back(s.positions.streams[0][t]);
      continue;
    }
    written.x.insert(written.x.end(), s.x.begin() + t * token_len,
                     s.x.begin() + (t + 1) * token_len);
    written.y.insert(written.y.end(), y, y + static_cast<std::ptrdiff_t>(token_len));
    for (size_t k = 0; k < s.positions.streams.size(); ++k)
      written.positions.streams[k].push_back(s.positions.streams[k][t]);
  }
  if (zero_positions.size() < 3 || written.tokens() == 0) return std::nullopt;
  if (judge_sample(written, 0, written.tokens(), o, written.positions, false).elements > 0)
    return std::nullopt;
  std::sort(zero_positions.begin(), zero_positions.end());
  Diagnosis d;
  d.cause = diagnosis::documented("unwritten");
  d.explains = 1;
  d.detail = fmt::format(
      "{} of {} sampled tokens have an output of zeros in every head (never written, as "
      "mlx#3949), the first at position {}; every other sampled token passes as declared: "
      "every one of the {} failing elements sampled is in them",
      zero_positions.size(), s.tokens(), zero_positions.front(), failing);
  return d;
}

}  // namespace

Diagnosis diagnose_rotary(const RotaryTensor& input, const RotaryTensor& output,
                          const VerifyRotaryOptions& declared, const VerifyRotaryResult& failed) {
  const VerifyRotaryOptions& o = declared;
  const RotarySample sample = diagnosis::sample_tokens(input, output, o, failed);
  const uint64_t tokens = declared.geometry.batch * declared.geometry.seq;
  // As declared, block by block: how many sampled blocks and tokens fail.
  diagnosis::Failures as_declared;
  uint64_t first = 0;
  for (const uint64_t end : sample.block_ends) {
    const SampleFailures f = judge_sample(sample, first, end, o, sample.positions, false);
    as_declared.elements += f.elements, as_declared.rows += f.tokens;
    as_declared.blocks += f.elements > 0;
    first = end;
  }
  if (!as_declared.systematic(sample.block_ends.size()))
    return isolated(failed, fmt::format("the failures on {} of {} tokens, sampled, lie in {} "
                                        "token{}: no declaration is tried for so few",
                                        sample.tokens(), tokens, as_declared.rows,
                                        as_declared.rows == 1 ? "" : "s"));
  SampleReading reading{diagnosis::observe(sample, o), std::nullopt, {}};
  if (!reading.observed.rows.empty()) {
    reading.read_back = readback::read_back(reading.observed);
    reading.unrotated_at = diagnosis::unrotated_probe(input, output, o, reading.observed);
  }
  if (std::optional<Diagnosis> d = unwritten(sample, o, as_declared.elements)) return *d;
  const std::vector<RotaryCandidate> tried = candidates(o, sample, reading);
  std::vector<Alternative> said;
  for (const RotaryCandidate& c : tried) said.push_back(c.said);
  return diagnosis::choose(
      said, as_declared.elements,
      [&](size_t i, uint64_t limit) -> std::optional<uint64_t> {
        // The first eighth of the blocks, then the rest only if the count is still under
        // `limit`: a wrong declaration fails the first blocks by far more.
        const RotaryCandidate& c = tried[i];
        const RowPositions& at = c.positions ? *c.positions : sample.positions;
        const size_t blocks = sample.block_ends.size();
        const uint64_t split = sample.block_ends[std::max<size_t>(1, blocks / 8) - 1];
        const uint64_t first = judge_sample(sample, 0, split, c.options, at, c.inverse).elements;
        if (first > limit || split == sample.tokens()) return first;
        return first +
               judge_sample(sample, split, sample.tokens(), c.options, at, c.inverse).elements;
      },
      fmt::format("on {} of {} tokens (every head), sampled", sample.tokens(), tokens),
      [&](const std::string& text) { return isolated(failed, text); });
}

}  // namespace pev::verify
