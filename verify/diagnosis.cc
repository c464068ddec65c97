#include "peverify/verify/diagnosis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "peverify/encoding/request.h"
#include "peverify/oracle/engine.h"
#include "peverify/verify/verify_pass.h"

namespace pev::verify {
namespace {

using diagnosis::kBlockRows;

// Rows as `read` gives them: in file order, or at position ids in order of their positions.
struct SampleBlock {
  uint64_t first;                   // the first row, in read's order
  std::vector<uint64_t> file_rows;  // at position ids: each row's row in the file
  std::vector<double> got;          // its rows, as stored
};

std::vector<SampleBlock> sample_rows(const properties::RowReader& read, uint64_t rows, int width,
                                     const properties::PositionMap* map,
                                     const VerifyResult& failed) {
  std::vector<uint64_t> index_of_row;  // at position ids: a file row's index in read's order
  if (map) {
    index_of_row.resize(rows);
    for (uint64_t i = 0; i < rows; ++i) index_of_row[map->row(i)] = i;
  }
  // The worst elements' rows in read's order: from the file row a table at ids names, else
  // position - start.
  const auto row_of = [&](const properties::Finding& f) -> std::optional<uint64_t> {
    if (f.row)
      return *f.row < index_of_row.size() ? std::optional(index_of_row[*f.row]) : std::nullopt;
    if (!map && f.pos >= failed.spec.start) return f.pos - failed.spec.start;
    return std::nullopt;
  };
  std::vector<uint64_t> worst;
  for (const properties::PropertyVerdict& v : failed.verdicts)
    for (const properties::Finding& f : v.worst)
      if (const auto row = row_of(f)) worst.push_back(*row);
  std::vector<SampleBlock> blocks;
  for (const uint64_t first : diagnosis::sampled_blocks(rows, worst)) {
    SampleBlock b{first, {}, {}};
    const uint64_t n = std::min(kBlockRows, rows - first);
    if (map)
      for (uint64_t i = first; i < first + n; ++i) b.file_rows.push_back(map->row(i));
    b.got.resize(n * static_cast<uint64_t>(width));
    read(first, n, b.got.data());
    blocks.push_back(std::move(b));
  }
  return blocks;
}

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

Failures failures(const Candidate& c, const std::vector<SampleBlock>& sample, Dtype dtype) {
  const bool by_encoding = c.claim.kind != Claim::Kind::kModel;
  const auto engine = oracle::make_fast_engine(c.spec, by_encoding ? dtype : Dtype::kFloat64);
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
  }
  out.elements = figures.over_claim;
  return out;
}

// The declarations that differ from the user's in one field, most specific first.
// The offset the sampled rows' own angles put them at (estimated_shift), every pair whose sin and
// cos the layout holds refining the lowest frequency's estimate; where it holds cos alone, the
// lowest frequency's acos, from rows whose rounding leaves it within 0.25 of a position. None for
// M-RoPE, whose pairs follow three streams.
std::optional<int64_t> shift_of_angles(const std::vector<SampleBlock>& sample,
                                       const VerifyOptions& declared, Dtype dtype) {
  const TableSpec& s = declared.spec;
  if (declared.positions && declared.positions->stream_count() != 1) return std::nullopt;
  const int half = s.d_model / 2, width = table_width(s);
  std::vector<int> cos_col(half, -1), sin_col(half, -1);
  for (int col = 0; col < width; ++col) {
    const Column c = pair_of_column(s.layout, half, col);
    int& at = c.is_sin ? sin_col[c.pair] : cos_col[c.pair];
    if (at < 0) at = col;
  }
  const int k = half - 1;
  if (cos_col[k] < 0) return std::nullopt;
  const double a = attention_factor(s), ulp = ulp_of(a, dtype);
  std::vector<double> w(static_cast<size_t>(half));
  for (int j = 0; j < half; ++j) w[static_cast<size_t>(j)] = frequency(s, j);
  // Rows past a turn of the lowest frequency (half a turn, for acos) would wrap: left out.
  const double turn = (sin_col[k] >= 0 ? 1.5 : 0.75) * M_PI / w[static_cast<size_t>(k)];
  std::vector<double> offsets;
  for (const SampleBlock& b : sample)
    for (uint64_t r = 0; r < b.got.size() / static_cast<uint64_t>(width); ++r) {
      const double* row = b.got.data() + r * static_cast<uint64_t>(width);
      const uint64_t declared_pos = declared.positions
                                        ? declared.positions->streams[0][b.file_rows[r]]
                                        : s.start + b.first + r;
      if (static_cast<double>(declared_pos) >= turn) continue;
      std::optional<double> estimated;
      if (sin_col[k] >= 0) {
        std::vector<diagnosis::PairAngle> pairs;
        for (int j = 0; j < half; ++j)
          if (cos_col[j] >= 0 && sin_col[j] >= 0)
            pairs.push_back(diagnosis::pair_angle(row[cos_col[j]], row[sin_col[j]],
                                                  w[static_cast<size_t>(j)], ulp));
        estimated = diagnosis::position_of_angles(std::move(pairs));
      } else {
        const double c = std::clamp(row[cos_col[k]] / a, -1.0, 1.0);
        const double wk = w[static_cast<size_t>(k)];
        if (ulp / a / std::max(std::sqrt(1 - c * c), 1e-300) / wk < 0.25)
          estimated = std::acos(c) / wk;
      }
      if (!estimated) continue;
      offsets.push_back(*estimated - static_cast<double>(declared_pos));
    }
  return diagnosis::estimated_shift(std::move(offsets));
}

std::vector<Candidate> candidates(const VerifyOptions& declared, uint64_t rows, Dtype dtype,
                                  std::optional<int64_t> estimated_shift) {
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
  d.estimated_shift = estimated_shift;
  d.width_flag = "--d-model";
  d.rows = "rows";
  for (diagnosis::SpecAlternative& a : diagnosis::spec_alternatives(d)) {
    Candidate c = with("", "", {});
    c.said = std::move(a.said);
    c.spec = std::move(a.spec);
    if (a.ids) c.positions = std::move(a.ids);
    out.push_back(std::move(c));
  }
  if (claim.kind == Claim::Kind::kModel)
    for (const Dtype compute : {Dtype::kFloat16, Dtype::kBFloat16}) {
      if (compute == dtype || claim.u >= Claim::model(compute).u) continue;  // no looser
      Candidate c = with("compute",
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

}  // namespace

Diagnosis diagnose(const properties::RowReader& read, uint64_t rows, Dtype dtype,
                   const properties::PositionMap* map, const VerifyOptions& declared,
                   const VerifyResult& failed) {
  const std::vector<SampleBlock> sample =
      sample_rows(read, rows, table_width(declared.spec), map, failed);
  uint64_t sampled_rows = 0;
  for (const SampleBlock& b : sample) sampled_rows += b.got.size() / table_width(declared.spec);
  const Candidate as_declared{{}, declared.spec, declared.claim, declared.positions};
  const Failures as_declared_fails = failures(as_declared, sample, dtype);
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
  const std::vector<Candidate> tried =
      candidates(declared, rows, dtype, shift_of_angles(sample, declared, dtype));
  std::vector<Alternative> said;
  for (const Candidate& c : tried) said.push_back(c.said);
  return diagnosis::choose(
      said, as_declared_fails.elements,
      [&](size_t i) -> std::optional<uint64_t> {
        return failures(tried[i], sample, dtype).elements;
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
