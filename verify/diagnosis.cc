#include "peverify/verify/diagnosis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "peverify/encoding/request.h"
#include "peverify/oracle/engine.h"
#include "peverify/verify/diagnosis_samples.h"
#include "peverify/verify/readback.h"
#include "peverify/verify/verify_pass.h"

namespace pev::verify {
namespace {

using diagnosis::SampleBlock;

using diagnosis::Alternative;
using diagnosis::Failures;

// One declaration to try: the user's with one field changed.
struct Candidate {
  Alternative said;
  TableSpec spec;
  Claim claim;
  std::optional<RowPositions> positions;  // row r at these ids, else at spec.start + r
  bool negated_sin = false;  // the data holds -sin (no flag says it: a bug to fix, not declare)
};

// The exact engines of one diagnosis, by declaration and target: most alternatives (every
// positions alternative, every looser claim) share the declared spec, and an engine's exact
// frequencies cost about a millisecond of MPFR each.
class Engines {
 public:
  const oracle::Engine& of(const TableSpec& s, Dtype target) {
    for (const auto& [spec, t, engine] : engines_)
      if (t == target && spec.d_model == s.d_model && spec.base == s.base &&
          spec.schedule == s.schedule && spec.layout == s.layout && spec.start == s.start &&
          spec.rope == s.rope)
        return *engine;
    engines_.emplace_back(s, target, oracle::make_fast_engine(s, target));
    return *std::get<2>(engines_.back());
  }

 private:
  std::vector<std::tuple<TableSpec, Dtype, std::unique_ptr<oracle::Engine>>> engines_;
};

// The sampled elements outside the candidate's claim, block by block; past `limit` it stops
// (the count then says only "more than limit").
Failures failures(const Candidate& c, const std::vector<SampleBlock>& sample, Dtype dtype,
                  Engines& engines, uint64_t limit = UINT64_MAX) {
  const bool by_encoding = c.claim.kind != Claim::Kind::kModel;
  const oracle::Engine* engine = &engines.of(c.spec, by_encoding ? dtype : Dtype::kFloat64);
  const measure::Judge judge(c.spec, c.claim, dtype);
  const int width = table_width(c.spec), half = c.spec.d_model / 2;
  pass::ExactRows exact;
  measure::Figures figures;
  Failures out;
  for (const SampleBlock& b : sample) {
    const uint64_t before_block = figures.over_claim;
    const uint64_t n = b.got.size() / static_cast<uint64_t>(width);
    if (c.positions)
      exact.compute_rows(*engine, c.spec, *c.positions, b.file_rows.data(), n, by_encoding);
    else
      exact.compute(*engine, c.spec, nullptr, b.first, c.spec.start + b.first, n, by_encoding);
    if (c.negated_sin)
      for (int col = 0; col < width; ++col)
        if (pair_of_column(c.spec.layout, half, col).is_sin)
          for (uint64_t r = 0; r < n; ++r) {
            exact.exact[r * width + col] = -exact.exact[r * width + col];
            if (by_encoding) exact.rounded[r * width + col] = -exact.rounded[r * width + col];
          }
    for (uint64_t r = 0; r < n; ++r) {
      const uint64_t before_row = figures.over_claim;
      const uint64_t pos =
          c.positions ? c.positions->budget_position(b.file_rows[r]) : c.spec.start + b.first + r;
      judge.add_row(pos, 0, b.got.data() + r * width, exact.exact.data() + r * width, figures,
                    nullptr, by_encoding ? exact.rounded.data() + r * width : nullptr);
      out.rows += figures.over_claim > before_row;
    }
    out.blocks += figures.over_claim > before_block;
    if (figures.over_claim > limit) break;
  }
  out.elements = figures.over_claim;
  return out;
}

// What the read-back gives the alternatives: the observations, their reading, every row's
// declared positions, and the probe of rows between the sampled ones.
struct ReadBackInputs {
  const readback::Observations* observed = nullptr;
  const readback::ReadBack* read_back = nullptr;
  const RowPositions* positions = nullptr;
  std::function<std::optional<bool>(uint64_t)> unrotated_at;
};

// A candidate: the declaration, about to take a looser claim, as the diagnosis will say it.
Candidate with_claim(const VerifyOptions& declared, std::string cause, std::string detail,
                     std::vector<std::string> flags) {
  return Candidate{{std::move(cause), std::move(detail), std::move(flags)},
                   declared.spec,
                   declared.claim,
                   declared.positions};
}

// The looser claims the data carries the signature of (verify/readback.h), tried after every
// structural cause: ggml's recurrence (float32's signature), then a narrower computation.
void looser_claims(const VerifyOptions& declared, Dtype dtype, const ReadBackInputs& in,
                   std::vector<Candidate>& out) {
  const Claim& claim = declared.claim;
  // recurrence: float32 arithmetic with the angle by ggml's recurrence over pairs, a looser claim
  // tried first, where the data carries float32's signature (llama.cpp's honest arithmetic).
  if (claim.kind == Claim::Kind::kModel && claim.u == Claim::model(Dtype::kFloat32).u &&
      claim.pair_step_ulps == 0 && in.observed && !in.observed->rows.empty() &&
      readback::has_signature_of(*in.observed, *in.read_back, Dtype::kFloat32)) {
    Candidate c =
        with_claim(declared, "recurrence",
                   "the data meets float32's model with the angle by a recurrence over pairs "
                   "(ggml's theta_{j+1} = theta_j theta_scale, llama.cpp's rope): honest "
                   "arithmetic whose pair j carries j more roundings",
                   {"--compute ggml"});
    c.claim = Claim::ggml();
    c.claim.c = claim.c;
    c.said.loosens_claim = true;
    out.push_back(std::move(c));
  }
  // compute: only where the data carries the narrower computation's signature (its errors of
  // that format's size in most pairs, no clean lines); a looser claim it merely meets is not a
  // cause.
  if (claim.kind == Claim::Kind::kModel)
    for (const Dtype compute : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
      if (compute == dtype || claim.u >= Claim::model(compute).u) continue;  // no looser
      // Where nothing was read back (M-RoPE's three streams) the claim is tried unchecked.
      if (in.read_back && !readback::has_signature_of(*in.observed, *in.read_back, compute))
        continue;
      Candidate c =
          with_claim(declared, "compute",
                     fmt::format("the data meets the model claim of a {} computation, not of "
                                 "the one claimed: computed, or its frequencies rounded, in a "
                                 "narrower format (the tightest such claim it meets)",
                                 name_of(compute)),
                     {fmt::format("--compute {}", name_of(compute))});
      // The user's C and output share kept: what --compute X with the user's other flags claims.
      c.claim = Claim::model(compute, claim.c, claim.output_ulps);
      c.said.loosens_claim = true;
      out.push_back(std::move(c));
    }
}

// The declarations that differ from the user's in one field, most specific first.
std::vector<Candidate> candidates(const VerifyOptions& declared, uint64_t rows, Dtype dtype,
                                  const ReadBackInputs& in) {
  const TableSpec& s = declared.spec;
  const Claim& claim = declared.claim;
  std::vector<Candidate> out;
  const auto with = [&](std::string cause, std::string detail, std::vector<std::string> flags) {
    return Candidate{
        {std::move(cause), std::move(detail), std::move(flags)}, s, claim, declared.positions};
  };
  const int width = table_width(s);
  for (const Layout l : kAllLayouts) {
    if (l == s.layout || layout_width(l, s.d_model) != width) continue;
    Candidate c = with(
        "layout", fmt::format("the rows are laid out as {}, not {}", name_of(l), name_of(s.layout)),
        {fmt::format("--layout {}", name_of(l))});
    c.spec.layout = l;
    out.push_back(std::move(c));
  }
  if (holds_sin_and_cos(s.layout) || layout_entry(s.layout).sin[0].stored()) {
    Candidate c = with("sign",
                       "every sin is negated: the table holds -sin (a rotation's sign "
                       "convention flipped); no declaration states it, the table is wrong",
                       {});
    c.negated_sin = true;
    out.push_back(std::move(c));
  }
  diagnosis::DeclaredSpec d;
  d.spec = s;
  d.ids = declared.positions ? &*declared.positions : nullptr;
  d.ids_given = declared.positions.has_value();
  d.ids_name = declared.positions_name;
  d.positions_end = declared.positions ? declared.positions->max_position() + 1 : s.start + rows;
  d.from_config = !declared.source.empty();
  d.other_layer_types = &declared.other_layer_types;
  d.head_dim = declared.head_dim;
  if (in.read_back) {
    d.estimated_shift = diagnosis::shift_of_rows(*in.observed, *in.read_back);
    d.observed = in.observed;
    d.read_back = in.read_back;
  }
  d.declared_positions = in.positions;
  d.unrotated_at = in.unrotated_at;
  if (declared.positions) d.global_position = [](uint64_t file_row) { return file_row; };
  d.width_flag = "--d-model";
  d.rows = "rows";
  for (diagnosis::SpecAlternative& a : diagnosis::spec_alternatives(d)) {
    Candidate c = with("", "", {});
    c.said = std::move(a.said);
    c.spec = std::move(a.spec);
    if (a.ids) c.positions = std::move(a.ids);
    out.push_back(std::move(c));
  }
  looser_claims(declared, dtype, in, out);
  // A declaration of another width (a layer type of another rotary dimension) reads the rows
  // at another width: not the table the user has.
  std::erase_if(out, [&](const Candidate& c) { return table_width(c.spec) != width; });
  return out;
}

// "pos 3000 dim 10, pos 70 dim 2".
std::string places(const VerifyResult& r) {
  return diagnosis::first_places(r.verdicts, [](const properties::Finding& f) {
    return fmt::format("pos {} dim {}", f.pos, f.column);
  });
}

// "oracle 1, consistent 2": each failing property with its count of failing elements where it
// keeps one.
std::string failing_counts(const VerifyResult& r) {
  std::vector<std::string> parts;
  for (const properties::PropertyVerdict& v : r.verdicts) {
    if (v.holds) continue;
    const char* key = v.property == "oracle"       ? "violations"
                      : v.property == "consistent" ? "inconsistent"
                      : v.property == "bounded"    ? "violations"
                                                   : nullptr;
    const auto it = key ? v.figures.find(key) : v.figures.end();
    parts.push_back(it == v.figures.end() ? v.property
                                          : fmt::format("{} {:.0f}", v.property, it->second));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

Diagnosis isolated(const VerifyResult& r, const std::string& tried) {
  Diagnosis d;
  d.cause = diagnosis::documented("isolated");
  d.detail = fmt::format("failing elements by property: {} (at {}); {}", failing_counts(r),
                         places(r), tried);
  return d;
}

// unwritten: the failing rows are all zeros (rows never written, as mlx#3949) and every other
// sampled row passes as declared. Judged, like any cause: the zero rows are left out and the rest
// must pass.
std::optional<Diagnosis> unwritten(const std::vector<SampleBlock>& sample,
                                   const VerifyOptions& declared, const RowPositions& positions,
                                   Dtype dtype, const Failures& as_declared, Engines& engines) {
  const int width = table_width(declared.spec);
  std::vector<SampleBlock> written;
  std::vector<uint64_t> zero_positions;
  uint64_t last_written = 0;
  for (const SampleBlock& b : sample) {
    SampleBlock kept{b.first, {}, {}};
    for (size_t r = 0; r < b.file_rows.size(); ++r) {
      const double* row = b.got.data() + r * width;
      const uint64_t pos = positions.streams[0][b.file_rows[r]];
      if (std::all_of(row, row + width, [](double v) { return v == 0; })) {
        zero_positions.push_back(pos);
        continue;
      }
      last_written = std::max(last_written, pos);
      kept.file_rows.push_back(b.file_rows[r]);
      kept.got.insert(kept.got.end(), row, row + width);
    }
    if (!kept.file_rows.empty()) written.push_back(std::move(kept));
  }
  if (zero_positions.size() < 3 || written.empty()) return std::nullopt;
  const Candidate as_declared_at_ids{{}, declared.spec, declared.claim, positions};
  if (failures(as_declared_at_ids, written, dtype, engines).elements > 0) return std::nullopt;
  std::sort(zero_positions.begin(), zero_positions.end());
  const bool beyond = zero_positions.front() > last_written;
  Diagnosis d;
  d.cause = diagnosis::documented("unwritten");
  d.explains = 1;
  d.detail = fmt::format(
      "{} sampled rows hold zeros in every column (rows never written, as mlx#3949){}; every "
      "other sampled row passes as declared: every one of the {} failing elements {}",
      zero_positions.size(),
      beyond ? fmt::format(", every one from position {} on, the last written row sampled at {}",
                           zero_positions.front(), last_written)
             : fmt::format(
                   ", at positions {}{}",
                   fmt::join(std::vector<uint64_t>(zero_positions.begin(),
                                                   zero_positions.begin() +
                                                       std::min<size_t>(3, zero_positions.size())),
                             ", "),
                   zero_positions.size() > 3 ? ", ..." : ""),
      as_declared.elements, "sampled is in them");
  return d;
}

}  // namespace

Diagnosis diagnose(const properties::RowReader& read, uint64_t rows, Dtype dtype,
                   const properties::PositionMap* map, const VerifyOptions& declared,
                   const VerifyResult& failed) {
  const std::vector<SampleBlock> sample =
      diagnosis::sample_rows(read, rows, table_width(declared.spec), map, failed);
  uint64_t sampled_rows = 0;
  for (const SampleBlock& b : sample) sampled_rows += b.got.size() / table_width(declared.spec);
  Engines engines;
  const Candidate as_declared{{}, declared.spec, declared.claim, declared.positions};
  const Failures as_declared_fails = failures(as_declared, sample, dtype, engines);
  if (as_declared_fails.elements == 0)
    return isolated(failed,
                    fmt::format("no element of {} of {} rows, sampled, is outside its claim: the "
                                "failing properties are not a declaration's, none other tried",
                                sampled_rows, rows));
  if (!as_declared_fails.systematic(sample.size()))
    return isolated(failed,
                    fmt::format("the failures on {} of {} rows, sampled, lie in {} row{}: no "
                                "declaration is tried for so few",
                                sampled_rows, rows, as_declared_fails.rows,
                                as_declared_fails.rows == 1 ? "" : "s"));
  const readback::Observations observed = diagnosis::observe(sample, declared, dtype);
  const std::optional<readback::ReadBack> read_back =
      observed.rows.empty() ? std::nullopt : std::optional(readback::read_back(observed));
  const RowPositions positions =
      declared.positions ? *declared.positions : consecutive_positions(declared.spec, rows);
  if (std::optional<Diagnosis> d =
          unwritten(sample, declared, positions, dtype, as_declared_fails, engines))
    return *d;
  ReadBackInputs in{observed.rows.empty() ? nullptr : &observed, read_back ? &*read_back : nullptr,
                    &positions, diagnosis::unrotated_probe(read, rows, declared, observed)};
  const std::vector<Candidate> tried = candidates(declared, rows, dtype, in);
  std::vector<Alternative> said;
  for (const Candidate& c : tried) said.push_back(c.said);
  return diagnosis::choose(
      said, as_declared_fails.elements,
      [&](size_t i, uint64_t limit) -> std::optional<uint64_t> {
        return failures(tried[i], sample, dtype, engines, limit).elements;
      },
      fmt::format("on {} of {} rows, sampled", sampled_rows, rows),
      [&](const std::string& tried_text) { return isolated(failed, tried_text); });
}

nlohmann::json to_json(const Diagnosis& d) {
  return {
      {"cause", d.cause}, {"detail", d.detail}, {"matches", d.matches}, {"explains", d.explains}};
}

std::string to_text(const Diagnosis& d) {
  return fmt::format(
      "diagnosis: {}: {}{}", d.cause, d.detail,
      d.matches.empty() ? "" : fmt::format("; matches {}", fmt::join(d.matches, " ")));
}

}  // namespace pev::verify
