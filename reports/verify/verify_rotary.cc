#include "peverify/reports/verify/verify_rotary.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "peverify/encoding/format.h"
#include "peverify/encoding/model_config.h"
#include "peverify/encoding/request.h"
#include "peverify/measure/error.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/positioned.h"
#include "peverify/oracle/rotation.h"
#include "peverify/support/parallel.h"

namespace pev::reports {

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
  if (!compute) throw ConfigError(f + "compute must be float32, float32-fma, bfloat16 or float64");
  o.compute = *compute;
  o.budget = a.budget;
  o.source = rotary_source(a.rotary);
  o.threads = a.threads;
  return o;
}

bool VerifyRotaryResult::holds() const {
  return std::all_of(verdicts.begin(), verdicts.end(),
                     [](const properties::Verdict& v) { return v.holds; });
}

namespace {

// Every token's positions: the ids (one per token, or one per sequence index shared by every
// batch row), else start + the sequence index.
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

struct Part {
  uint64_t rotated = 0, over = 0, not_finite = 0, passthrough = 0, touched = 0;
  double max_abs = 0, worst_ratio = 0;
  std::vector<properties::Finding> worst, touched_worst;
  void merge(const Part& o) {
    rotated += o.rotated, over += o.over, not_finite += o.not_finite;
    passthrough += o.passthrough, touched += o.touched;
    max_abs = std::max(max_abs, o.max_abs);
    worst_ratio = std::max(worst_ratio, o.worst_ratio);
    for (const properties::Finding& f : o.worst) measure::keep_worst(worst, f);
    for (const properties::Finding& f : o.touched_worst) measure::keep_worst(touched_worst, f);
  }
};

bool same_value(double a, double b) {
  return (a == b && std::signbit(a) == std::signbit(b)) || (std::isnan(a) && std::isnan(b));
}

}  // namespace

VerifyRotaryResult verify_rotary(const RotaryTensor& input, const RotaryTensor& output,
                                 const VerifyRotaryOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  VerifyRotaryResult r;
  r.input = input.name;
  r.output = output.name;
  r.description = input.description + " -> " + output.description;
  r.options = o;
  r.output_dtype = output.dtype;
  const RotationSpec& spec = o.spec;
  if (auto err = validate(spec)) throw ConfigError(*err);
  const TensorGeometry& g = o.geometry;
  if (spec.head_dim != g.head_dim)
    throw ConfigError(fmt::format("the tensors' last axis is {}, but the head dimension is {}",
                                  g.head_dim, spec.head_dim));
  const RowPositions tokens = token_positions(o);
  if (auto err = validate_positions(tokens, spec.table, tokens.rows())) throw ConfigError(*err);

  const int d = spec.table.d_model, hd = spec.head_dim, pairs = d / 2;
  const oracle::RotationOracle exact_rotation(spec, output.dtype, oracle::EngineKind::kFast);
  const auto cache = oracle::make_fast_engine(spec.table, Dtype::kFloat64);
  const measure::RotationBudget budget(spec, o.compute, output.dtype);
  // Blocks of whole tokens within one batch row: the oracle, the cache values and the cache's
  // errors are computed once per token and pair, for every head.
  const uint64_t heads = g.heads;
  const uint64_t per_block = std::max<uint64_t>(1, o.block_rows / heads);
  const uint64_t chunks = (g.seq + per_block - 1) / per_block, blocks = g.batch * chunks;
  std::vector<Part> parts(blocks);
  parallel_for(blocks, o.threads, [&](uint64_t blk) {
    const uint64_t bat = blk / chunks, s0 = blk % chunks * per_block;
    const uint64_t nt = std::min(per_block, g.seq - s0);
    thread_local std::vector<double> x, y, run;
    thread_local std::vector<uint64_t> token;
    thread_local oracle::TileValues cs;
    thread_local oracle::RotatedValues rotated;
    const size_t row_len = static_cast<size_t>(hd);
    x.resize(nt * heads * row_len), y.resize(nt * heads * row_len);
    token.resize(nt);
    for (uint64_t i = 0; i < nt; ++i) token[i] = bat * g.seq + s0 + i;
    // x[i][h][k]: token s0 + i, head h. In batch-seq-heads order a block's rows are contiguous;
    // in batch-heads-seq order each head's are.
    if (g.axes == RotaryAxes::kBatchHeadsSeqDim) {
      run.resize(nt * row_len);
      for (const auto& [t, dst] : {std::pair{&input, &x}, std::pair{&output, &y}})
        for (uint64_t h = 0; h < heads; ++h) {
          t->read(g.row(bat, s0, h), nt, run.data());
          for (uint64_t i = 0; i < nt; ++i)
            std::copy_n(&run[i * row_len], row_len, &(*dst)[(i * heads + h) * row_len]);
        }
    } else {
      input.read(g.row(bat, s0, 0), nt * heads, x.data());
      output.read(g.row(bat, s0, 0), nt * heads, y.data());
    }
    // An input that is not a number has no exact rotation: the oracle names it (bad input).
    try {
      exact_rotation.rotate(tokens, token.data(), nt, static_cast<int>(heads), x.data(), rotated);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(
          fmt::format("{}: {} (batch {}, from sequence index {})", input.name, e.what(), bat, s0));
    }
    // The exact A cos, A sin the budgets need: for every block under the model budget, else only
    // for a block where some element is not the correctly rounded output.
    bool have_cs = false;
    const auto cos_sin = [&] {
      if (!have_cs) oracle::evaluate_rows(*cache, spec.table, tokens, token.data(), nt, cs);
      have_cs = true;
      return &cs;
    };
    Part& p = parts[blk];
    for (uint64_t i = 0; i < nt; ++i)
      for (int j = 0; j < pairs; ++j) {
        const auto [a, bdim] = rotated_dims(spec, j);
        const uint64_t pos = tokens.of_pair(spec.table, token[i], j);
        // The cache's errors, once per token and pair, and only where a budget is needed.
        std::optional<measure::RotationBudget::CacheErrors> errors;
        for (uint64_t h = 0; h < heads; ++h) {
          const size_t at = (i * heads + h) * row_len;
          const double* xi = &x[at];
          const double* yi = &y[at];
          for (const auto& [k, own, other] :
               {std::tuple{a, xi[a], -xi[bdim]}, std::tuple{bdim, xi[bdim], xi[a]}}) {
            ++p.rotated;
            const double got = yi[k], want = rotated.exact[at + k];
            const double err = std::fabs(got - want);
            if (std::isfinite(got))
              p.max_abs = std::max(p.max_abs, err);
            else
              ++p.not_finite;
            // The correctly rounded output needs no budget: strict and faithful skip it (and its
            // figure) for every element that holds, the bulk of the time they take.
            const bool exact_bits = same_value(got, rotated.rounded[at + k]);
            if (exact_bits && o.budget != Claim::Kind::kModel) continue;
            const double c = cos_sin()->cos_exact[i * pairs + j];
            const double s = cs.sin_exact[i * pairs + j];
            if (!errors) errors = budget.cache_errors(pos, j, c, s);
            const double allowed = budget.allowed(*errors, own, other, c, s, want);
            if (allowed > 0) p.worst_ratio = std::max(p.worst_ratio, err / allowed);
            const bool ok = o.budget == Claim::Kind::kStrict ? exact_bits
                            : o.budget == Claim::Kind::kFaithful
                                ? std::isfinite(got) &&
                                      measure::is_faithful_encoding(
                                          got, want, rotated.rounded[at + k], output.dtype, false)
                                : err <= allowed;
            if (ok) continue;
            ++p.over;
            const double shown =
                o.budget == Claim::Kind::kModel ? allowed : ulp_of(want, output.dtype);
            if (measure::would_keep(p.worst, err, shown))
              measure::keep_worst(
                  p.worst, properties::Finding(pos, k, got, want, err, shown,
                                               measure::floored_ulps(err, want, output.dtype),
                                               std::isfinite(got) ? "number" : "not finite",
                                               g.row(bat, s0 + i, h)));
          }
        }
      }
    for (uint64_t i = 0; i < nt; ++i)  // pass-through: the input itself, bit for bit
      for (uint64_t h = 0; h < heads; ++h)
        for (int k = d; k < hd; ++k) {
          const size_t at = (i * heads + h) * row_len + static_cast<size_t>(k);
          ++p.passthrough;
          if (same_value(y[at], x[at])) continue;
          ++p.touched;
          measure::keep_worst(p.touched_worst,
                              properties::Finding(tokens.budget_position(token[i]), k, y[at], x[at],
                                                  std::fabs(y[at] - x[at]), 0, 0,
                                                  "pass-through changed", g.row(bat, s0 + i, h)));
        }
  });
  Part all;
  for (const Part& p : parts) all.merge(p);
  r.elements = all.rotated + all.passthrough;

  properties::Verdict rot;
  rot.property = "rotation";
  rot.checked = all.rotated;
  rot.holds = all.over == 0;
  rot.worst = all.worst;
  rot.figures = {{"max_abs_error", all.max_abs},
                 {"worst_error_over_budget", all.worst_ratio},
                 {"outside_budget", static_cast<double>(all.over)},
                 {"not_finite", static_cast<double>(all.not_finite)}};
  const std::string held = o.budget == Claim::Kind::kStrict
                               ? "strict: the correctly rounded output, by encoding"
                           : o.budget == Claim::Kind::kFaithful
                               ? "faithful: one of the two values around the exact output"
                               : "model: " + o.compute.describe();
  rot.summary = fmt::format(
      "{} of {} rotated elements outside the budget ({}); max abs error {:.3g}, worst error / "
      "model budget {:.3g}",
      all.over, all.rotated, held, all.max_abs, all.worst_ratio);
  r.verdicts.push_back(rot);
  properties::Verdict pass;
  pass.property = "pass-through";
  pass.checked = all.passthrough;
  pass.holds = all.touched == 0;
  pass.worst = all.touched_worst;
  pass.summary =
      all.passthrough == 0
          ? std::string("not applicable: every dimension rotates (rotary dimension = head_dim)")
          : fmt::format(
                "{} of {} elements past the rotary dimension {} changed (they must pass "
                "through bit for bit)",
                all.touched, all.passthrough, d);
  r.verdicts.push_back(pass);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace pev::reports
