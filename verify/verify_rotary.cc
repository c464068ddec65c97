#include "peverify/verify/verify_rotary.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "peverify/encoding/format.h"
#include "peverify/encoding/model_config.h"
#include "peverify/encoding/request.h"
#include "peverify/encoding/rope.h"
#include "peverify/measure/error.h"
#include "peverify/measure/rounded_scan.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/positioned.h"
#include "peverify/oracle/rotation.h"
#include "peverify/support/parallel.h"
#include "peverify/verify/diagnosis.h"

namespace pev::verify {

bool VerifyRotaryResult::holds() const {
  return std::all_of(verdicts.begin(), verdicts.end(),
                     [](const properties::PropertyVerdict& v) { return v.holds; });
}

namespace {

// What a block's elements gave: the rotated ones against the exact rotation, the pass-through
// ones against the input.
struct Part {
  uint64_t rotated = 0, over = 0, not_finite = 0, passthrough = 0, touched = 0, tokens_over = 0;
  double max_abs = 0, worst_ratio = 0;
  std::vector<properties::Finding> worst, touched_worst;
  void merge(const Part& o) {
    rotated += o.rotated, over += o.over, not_finite += o.not_finite;
    passthrough += o.passthrough, touched += o.touched, tokens_over += o.tokens_over;
    max_abs = std::max(max_abs, o.max_abs);
    worst_ratio = std::max(worst_ratio, o.worst_ratio);
    for (const properties::Finding& f : o.worst) measure::keep_worst(worst, f);
    for (const properties::Finding& f : o.touched_worst) measure::keep_worst(touched_worst, f);
  }
};

bool same_value(double a, double b) {
  return (a == b && std::signbit(a) == std::signbit(b)) || (std::isnan(a) && std::isnan(b));
}

// One block of whole tokens within one batch row, as read and as the oracle rotates it.
struct Block {
  uint64_t batch = 0, first = 0, tokens = 0;  // sequence indices first .. first + tokens - 1
  std::vector<uint64_t> token;                // each token's index into the positions
  std::vector<double> x, y;                   // x[i][h][k]: token first + i, head h
  oracle::RotatedValues rotated;
  oracle::TileValues cos_sin;  // the exact A cos, A sin, when a budget needs them
  bool have_cos_sin = false;
};

// The pass over the tensors: blocks of whole tokens within a batch row, so that the oracle, the
// cache values and the cache's errors are computed once per token and pair, for every head.
class RotaryPass {
 public:
  RotaryPass(const RotaryTensor& input, const RotaryTensor& output, const VerifyRotaryOptions& o,
             const RowPositions& tokens)
      : input_(input),
        output_(output),
        o_(o),
        spec_(o.spec),
        g_(o.geometry),
        tokens_(tokens),
        exact_rotation_(spec_, output.dtype, oracle::EngineKind::kFast),
        cache_(oracle::make_fast_engine(spec_.table, Dtype::kFloat64)),
        budget_(spec_, o.compute, output.dtype),
        per_block_(std::max<uint64_t>(1, o.block_rows / g_.heads)),
        chunks_((g_.seq + per_block_ - 1) / per_block_) {}

  uint64_t blocks() const { return g_.batch * chunks_; }

  Part judge(uint64_t index) const {
    thread_local Block b;
    read(index, b);
    Part p;
    for (uint64_t i = 0; i < b.tokens; ++i) {
      const uint64_t before = p.over + p.touched;
      if (!all_rounded(b, i, p))
        for (int j = 0; j < spec_.table.d_model / 2; ++j) judge_pair(b, i, j, p);
      judge_passthrough(b, i, p);
      p.tokens_over += p.over + p.touched > before;
    }
    return p;
  }

 private:
  // Reads block `index` of both tensors and rotates its input exactly. In batch-seq-heads order a
  // block's rows are contiguous; in batch-heads-seq order each head's are.
  void read(uint64_t index, Block& b) const {
    b.batch = index / chunks_, b.first = index % chunks_ * per_block_;
    b.tokens = std::min(per_block_, g_.seq - b.first);
    b.have_cos_sin = false;
    const uint64_t heads = g_.heads;
    const size_t row_len = static_cast<size_t>(spec_.head_dim);
    b.x.resize(b.tokens * heads * row_len), b.y.resize(b.tokens * heads * row_len);
    b.token.resize(b.tokens);
    for (uint64_t i = 0; i < b.tokens; ++i) b.token[i] = b.batch * g_.seq + b.first + i;
    if (g_.axes == RotaryAxes::kBatchHeadsSeqDim) {
      thread_local std::vector<double> run;
      run.resize(b.tokens * row_len);
      for (const auto& [t, dst] : {std::pair{&input_, &b.x}, std::pair{&output_, &b.y}})
        for (uint64_t h = 0; h < heads; ++h) {
          t->read(g_.row(b.batch, b.first, h), b.tokens, run.data());
          for (uint64_t i = 0; i < b.tokens; ++i)
            std::copy_n(&run[i * row_len], row_len, &(*dst)[(i * heads + h) * row_len]);
        }
    } else {
      input_.read(g_.row(b.batch, b.first, 0), b.tokens * heads, b.x.data());
      output_.read(g_.row(b.batch, b.first, 0), b.tokens * heads, b.y.data());
    }
    // An input that is not a number has no exact rotation: the oracle names it (bad input).
    try {
      exact_rotation_.rotate(tokens_, b.token.data(), b.tokens, static_cast<int>(heads), b.x.data(),
                             b.rotated);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(fmt::format("{}: {} (batch {}, from sequence index {})", input_.name,
                                    e.what(), b.batch, b.first));
    }
  }

  // The exact A cos, A sin the budgets need: for every block under the model budget, else only
  // for a block where some element is not the correctly rounded output.
  const oracle::TileValues& cos_sin(Block& b) const {
    if (!b.have_cos_sin)
      oracle::evaluate_rows(*cache_, spec_.table, tokens_, b.token.data(), b.tokens, b.cos_sin);
    b.have_cos_sin = true;
    return b.cos_sin;
  }

  // Under a strict or faithful claim, token i's rotated elements when every one is the correctly
  // rounded output (and finite): counted, their max abs error kept, and nothing else to judge
  // (judge_pair would skip each of them). False, with p untouched, when any is not.
  bool all_rounded(const Block& b, uint64_t i, Part& p) const {
    if (o_.claim == Claim::Kind::kModel) return false;
    const auto d = static_cast<size_t>(spec_.table.d_model);
    const auto row_len = static_cast<size_t>(spec_.head_dim);
    measure::RoundedScan scan;
    for (uint64_t h = 0; h < g_.heads && scan.all_rounded; ++h) {
      const size_t at = (i * g_.heads + h) * row_len;
      measure::scan_rounded(&b.y[at], &b.rotated.rounded[at], &b.rotated.exact[at], d, scan);
    }
    if (!scan.all_rounded || !std::isfinite(scan.max_abs)) return false;
    p.rotated += g_.heads * d;
    p.max_abs = std::max(p.max_abs, scan.max_abs);
    return true;
  }

  // Token i's pair j, in every head: both rotated elements against the exact rotation, by the
  // claim rule (measure::within_claim); the cache's errors once, and only where a budget is
  // needed.
  void judge_pair(Block& b, uint64_t i, int j, Part& p) const {
    const auto [a, bdim] = rotated_dims(spec_, j);
    const auto [out_a, out_b] = output_dims(spec_, j);  // where the kernel wrote them
    const uint64_t pos = tokens_.of_pair(spec_.table, b.token[i], j);
    const size_t pairs = static_cast<size_t>(spec_.table.d_model / 2);
    const size_t row_len = static_cast<size_t>(spec_.head_dim);
    std::optional<measure::RotationBudget::CacheErrors> errors;
    for (uint64_t h = 0; h < g_.heads; ++h) {
      const size_t at = (i * g_.heads + h) * row_len;
      const double* xi = &b.x[at];
      const double* yi = &b.y[at];
      for (const auto& [k, own, other] :
           {std::tuple{out_a, xi[a], -xi[bdim]}, std::tuple{out_b, xi[bdim], xi[a]}}) {
        ++p.rotated;
        const double got = yi[k], want = b.rotated.exact[at + k];
        const double rounded = b.rotated.rounded[at + k];
        const double err = std::fabs(got - want);
        if (std::isfinite(got))
          p.max_abs = std::max(p.max_abs, err);
        else
          ++p.not_finite;
        // The correctly rounded output needs no budget: strict and faithful skip it (and its
        // figure) for every element that holds, the bulk of the time they take.
        if (same_value(got, rounded) && o_.claim != Claim::Kind::kModel) continue;
        const double c = cos_sin(b).cos_exact[i * pairs + static_cast<size_t>(j)];
        const double s = b.cos_sin.sin_exact[i * pairs + static_cast<size_t>(j)];
        if (!errors) errors = budget_.cache_errors(pos, j, c, s);
        const double allowed = budget_.allowed(*errors, own, other, c, s, want);
        if (allowed > 0) p.worst_ratio = std::max(p.worst_ratio, err / allowed);
        if (measure::within_claim(o_.claim, got, want, rounded, err, allowed, output_.dtype, false))
          continue;
        ++p.over;
        const double shown =
            o_.claim == Claim::Kind::kModel ? allowed : ulp_of(want, output_.dtype);
        if (!measure::would_keep(p.worst, err, shown)) continue;
        properties::Finding f(
            pos, k, got, want, err, shown, measure::floored_ulps(err, want, output_.dtype),
            std::isfinite(got) ? "number" : "not finite", g_.row(b.batch, b.first + i, h));
        if (tokens_.stream_count() == 3 && !tokens_.single(b.token[i]))
          f.stream = mrope_stream(spec_.table.rope, j);
        measure::keep_worst(p.worst, f);
      }
    }
  }

  // Token i's dims past the rotary dimension: the input itself, bit for bit.
  void judge_passthrough(const Block& b, uint64_t i, Part& p) const {
    const int d = spec_.table.d_model, hd = spec_.head_dim;
    for (uint64_t h = 0; h < g_.heads; ++h)
      for (int k = d; k < hd; ++k) {
        const size_t at = (i * g_.heads + h) * static_cast<size_t>(hd) + static_cast<size_t>(k);
        ++p.passthrough;
        if (same_value(b.y[at], b.x[at])) continue;
        ++p.touched;
        measure::keep_worst(
            p.touched_worst,
            properties::Finding(tokens_.budget_position(b.token[i]), k, b.y[at], b.x[at],
                                std::fabs(b.y[at] - b.x[at]), 0, 0, "pass-through changed",
                                g_.row(b.batch, b.first + i, h)));
      }
  }

  const RotaryTensor& input_;
  const RotaryTensor& output_;
  const VerifyRotaryOptions& o_;
  const RotationSpec& spec_;
  const TensorGeometry& g_;
  const RowPositions& tokens_;
  const oracle::RotationOracle exact_rotation_;
  const std::unique_ptr<oracle::Engine> cache_;
  const measure::RotationBudget budget_;
  const uint64_t per_block_, chunks_;
};

properties::PropertyVerdict rotation_verdict(const Part& all, const VerifyRotaryOptions& o) {
  properties::PropertyVerdict rot;
  rot.property = "rotation";
  rot.checked = all.rotated;
  rot.holds = all.over == 0;
  rot.worst = all.worst;
  rot.figures = {{"max_abs_error", all.max_abs},
                 {"worst_error_over_budget", all.worst_ratio},
                 {"outside_budget", static_cast<double>(all.over)},
                 {"not_finite", static_cast<double>(all.not_finite)}};
  const std::string held = o.claim == Claim::Kind::kStrict
                               ? "strict: the correctly rounded output, by encoding"
                           : o.claim == Claim::Kind::kFaithful
                               ? "faithful: one of the two values around the exact output"
                               : "model: " + o.compute.describe();
  rot.summary = fmt::format(
      "{} of {} rotated elements outside the budget ({}); max abs error {:.3g}, worst error / "
      "model budget {:.3g}",
      all.over, all.rotated, held, all.max_abs, all.worst_ratio);
  return rot;
}

properties::PropertyVerdict passthrough_verdict(const Part& all, int rotary_dim) {
  properties::PropertyVerdict pass;
  pass.property = "pass-through";
  pass.checked = all.passthrough;
  pass.holds = all.touched == 0;
  pass.worst = all.touched_worst;
  pass.figures = {{"changed", static_cast<double>(all.touched)}};
  pass.summary =
      all.passthrough == 0
          ? std::string("not applicable: every dimension rotates (rotary dimension = head_dim)")
          : fmt::format(
                "{} of {} elements past the rotary dimension {} changed (they must pass "
                "through bit for bit)",
                all.touched, all.passthrough, rotary_dim);
  return pass;
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
  if (auto err = validate(o.spec)) throw ConfigError(*err);
  if (o.spec.head_dim != o.geometry.head_dim)
    throw ConfigError(fmt::format("the tensors' last axis is {}, but the head dimension is {}",
                                  o.geometry.head_dim, o.spec.head_dim));
  const RowPositions tokens = token_positions(o);
  if (auto err = validate_positions(tokens, o.spec.table, tokens.rows())) throw ConfigError(*err);

  const RotaryPass pass(input, output, o, tokens);
  std::vector<Part> parts(pass.blocks());
  parallel_for(pass.blocks(), o.threads, [&](uint64_t b) { parts[b] = pass.judge(b); });
  Part all;
  for (const Part& p : parts) all.merge(p);  // in block order: independent of the threads
  r.elements = all.rotated + all.passthrough;
  r.failing_tokens = all.tokens_over;
  r.verdicts.push_back(rotation_verdict(all, o));
  r.verdicts.push_back(passthrough_verdict(all, o.spec.table.d_model));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (o.diagnose && !r.holds()) {  // nothing on a pass
    try {                          // a diagnosis never changes the verdict nor the exit code
      r.diagnosis = diagnose_rotary(input, output, o, r);
    } catch (const std::exception& e) {
      r.diagnosis = Diagnosis{
          diagnosis::documented("none"), std::string("not diagnosed: ") + e.what(), {}, 0};
    }
    r.diagnosis_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - r.seconds;
  }
  return r;
}

}  // namespace pev::verify
