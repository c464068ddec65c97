#include "peverify/reports/verify/diagnosis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "peverify/encoding/request.h"
#include "peverify/oracle/engine.h"
#include "peverify/reports/verify/verify_pass.h"

namespace pev::reports {
namespace {

// Sampled rows: blocks of kBlockRows consecutive rows at kBlocks places spread on a log scale
// (errors grow with position), and the blocks holding the worst elements the verdict named.
constexpr uint64_t kBlockRows = 16;
constexpr int kBlocks = 48;
// A declaration that accounts for this share of the failing elements is named even where a few
// still fail (they are said as isolated).
constexpr double kExplains = 0.99;

struct SampleBlock {
  uint64_t first;           // the first row (file order)
  std::vector<double> got;  // its rows, as stored
};

std::vector<SampleBlock> sample_rows(const properties::RowReader& read, uint64_t rows, int width,
                                     const VerifyResult& failed) {
  std::vector<uint64_t> firsts;
  const uint64_t last_first = rows > kBlockRows ? rows - kBlockRows : 0;
  for (int i = 0; i < kBlocks; ++i) {
    const double at = std::pow(static_cast<double>(last_first + 1), i / double(kBlocks - 1)) - 1;
    firsts.push_back(std::min(last_first, static_cast<uint64_t>(at)));
  }
  for (const properties::PropertyVerdict& v : failed.verdicts)
    for (const properties::Finding& f : v.worst)
      if (f.pos >= failed.spec.start && f.pos - failed.spec.start < rows)
        firsts.push_back(std::min(last_first, f.pos - failed.spec.start));
  std::sort(firsts.begin(), firsts.end());
  std::vector<SampleBlock> blocks;
  for (const uint64_t first : firsts) {
    if (!blocks.empty() && first < blocks.back().first + kBlockRows) continue;  // overlapping
    SampleBlock b{first, {}};
    const uint64_t n = std::min(kBlockRows, rows - first);
    b.got.resize(n * static_cast<uint64_t>(width));
    read(first, n, b.got.data());
    blocks.push_back(std::move(b));
  }
  return blocks;
}

// One declaration to try: the user's with one field changed.
struct Candidate {
  std::string cause, detail;
  std::vector<std::string> flags;
  TableSpec spec;
  Claim claim;
  bool negated_sin = false;    // the data holds -sin (no flag says it: a bug to fix, not declare)
  bool loosens_claim = false;  // compute: a weaker claim, tried after every structural cause
};

// The sampled elements outside a candidate's claim, and how many rows and blocks hold them.
struct Failures {
  uint64_t elements = 0, rows = 0, blocks = 0;
  // Spread over rows and blocks, as a wrong declaration fails: a looser claim or another
  // declaration is never named for a corruption of one or two elements.
  bool systematic(size_t sampled_blocks) const {
    return rows >= 3 && blocks >= std::min<uint64_t>(3, sampled_blocks);
  }
};

Failures failures(const Candidate& c, const std::vector<SampleBlock>& sample, Dtype dtype) {
  const bool by_encoding = c.claim.kind != Claim::Kind::kModel;
  const auto engine = oracle::make_fast_engine(c.spec, by_encoding ? dtype : Dtype::kFloat64);
  const measure::Judge judge(c.spec, c.claim, dtype);
  const int width = table_width(c.spec), half = c.spec.d_model / 2;
  verify_pass::ExactRows exact;
  measure::Figures figures;
  Failures out;
  for (const SampleBlock& b : sample) {
    const uint64_t before_block = figures.over_claim;
    const uint64_t n = b.got.size() / static_cast<uint64_t>(width);
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
      judge.add_row(c.spec.start + b.first + r, 0, b.got.data() + r * width,
                    exact.exact.data() + r * width, figures, nullptr,
                    by_encoding ? exact.rounded.data() + r * width : nullptr);
      out.rows += figures.over_claim > before_row;
    }
    out.blocks += figures.over_claim > before_block;
  }
  out.elements = figures.over_claim;
  return out;
}

// x rounded to nearest (ties to even) in format t.
double rounded_to(double x, Dtype t) {
  const double ulp = ulp_of(x, t);
  return std::nearbyint(x / ulp) * ulp;
}

// The table with its frequencies rounded to `t` (from float32, as a framework casts inv_freq),
// as the oracle can evaluate it: LongRoPE's per-pair factors carry the ratio exact / rounded
// (its MPFR frequency is then the rounded one to within 2^-53 relative, far below any claim),
// with the attention factor 1 and one factor list for every length.
TableSpec with_rounded_frequencies(const TableSpec& s, uint64_t rows, Dtype t) {
  TableSpec r = s;
  r.rope = RopeScaling{};
  r.rope.type = RopeType::kLongRope;
  for (int k = 0; k < s.d_model / 2; ++k) {
    const double w = frequency(s, k);
    r.rope.short_factor.push_back(w / rounded_to(static_cast<float>(w), t));
  }
  r.rope.long_factor = r.rope.short_factor;
  r.rope.attention_factor = 1.0;
  r.rope.sequence_length = s.start + rows;
  r.rope.original_max_position = r.rope.sequence_length;
  return r;
}

// The declarations that differ from the user's in one field, most specific first.
std::vector<Candidate> candidates(const VerifyOptions& declared, uint64_t rows, Dtype dtype) {
  const TableSpec& s = declared.spec;
  const Claim& claim = declared.claim;
  std::vector<Candidate> out;
  const auto with = [&](std::string cause, std::string detail, std::vector<std::string> flags) {
    Candidate c{std::move(cause), std::move(detail), std::move(flags), s, claim};
    return c;
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
  for (int k = 1; k <= 8; ++k)
    for (const int sign : {-1, 1}) {
      const int64_t start = static_cast<int64_t>(s.start) + sign * k;
      if (start < 0) continue;
      Candidate c =
          with("positions",
               fmt::format("the rows start at position {}, not {} (positions off by {:+d})", start,
                           s.start, sign * k),
               {fmt::format("--start {}", start)});
      c.spec.start = static_cast<uint64_t>(start);
      out.push_back(std::move(c));
    }
  if (s.rope.type != RopeType::kDefault) {
    Candidate c =
        with("recipe",
             fmt::format("the frequencies are the unscaled ones: the {} recipe was not "
                         "applied{}",
                         name_of(s.rope.type),
                         s.rope.type == RopeType::kLlama3
                             ? " (as transformers#32330: llama3 returned theta unchanged); "
                               "declared without --model-config or --rope-scaling"
                             : "; declared without --model-config or --rope-scaling"),
             {fmt::format("--d-model {}", s.d_model), fmt::format("--base {:g}", s.base)});
    c.spec.rope = RopeScaling{};
    out.push_back(std::move(c));
  }
  if (s.rope.type == RopeType::kDefault && s.rope.mrope_section.empty())
    for (const Dtype t : {Dtype::kBFloat16, Dtype::kFloat16}) {
      Candidate c = with(
          "frequency-dtype",
          fmt::format("the frequencies (inv_freq) were rounded to {} before the angles (as "
                      "transformers#29496): keep inv_freq in float32; no declaration states it",
                      name_of(t)),
          {});
      c.spec = with_rounded_frequencies(s, rows, t);
      out.push_back(std::move(c));
    }
  if (declared.source.empty() && is_plain(s))
    for (const double base : {1e4, 1e5, 5e5, 1e6, 1e7}) {
      if (base == s.base) continue;
      Candidate c = with("base", fmt::format("the base is {:g}, not {:g}", base, s.base),
                         {fmt::format("--base {:g}", base)});
      c.spec.base = base;
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
      c.claim = resolve_claim({Claim::Kind::kModel, compute, std::nullopt});
      c.loosens_claim = true;
      out.push_back(std::move(c));
    }
  return out;
}

// "pos 3000 dim 10, pos 70 dim 2 and 5 more".
std::string places(const VerifyResult& r) {
  std::vector<std::string> seen;
  for (const properties::PropertyVerdict& v : r.verdicts)
    for (const properties::Finding& f : v.worst)
      if (!v.holds && seen.size() < 3) {
        const std::string at = fmt::format("pos {} dim {}", f.pos, f.column);
        if (std::find(seen.begin(), seen.end(), at) == seen.end()) seen.push_back(at);
      }
  return fmt::format("{}", fmt::join(seen, ", "));
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
  d.cause = "isolated";
  d.detail = fmt::format("failing elements by property: {} (at {}); {}", failing_counts(r),
                         places(r), tried);
  return d;
}

}  // namespace

Diagnosis diagnose(const properties::RowReader& read, uint64_t rows, Dtype dtype,
                   const VerifyOptions& declared, const VerifyResult& failed) {
  if (declared.positions)
    return isolated(failed, "no other declaration tried: a table at position ids is not diagnosed");
  const std::vector<SampleBlock> sample =
      sample_rows(read, rows, table_width(declared.spec), failed);
  uint64_t sampled_rows = 0;
  for (const SampleBlock& b : sample) sampled_rows += b.got.size() / table_width(declared.spec);
  Candidate as_declared{"", "", {}, declared.spec, declared.claim};
  const Failures as_declared_fails = failures(as_declared, sample, dtype);
  const uint64_t base_failures = as_declared_fails.elements;
  const std::vector<Candidate> tried = candidates(declared, rows, dtype);
  if (!as_declared_fails.systematic(sample.size()))
    return isolated(failed,
                    fmt::format("the failures on {} of {} rows, sampled, lie in {} row{}: no "
                                "declaration is tried for so few",
                                sampled_rows, rows, as_declared_fails.rows,
                                as_declared_fails.rows == 1 ? "" : "s"));
  const std::string said = fmt::format(
      "{} other declarations (layout, sign, positions, recipe, frequency dtype, base, compute) "
      "tried on {} of {} rows, sampled: none passes",
      tried.size(), sampled_rows, rows);
  // The first that passes, structural causes before a looser claim; else the one accounting for
  // the most failing elements, if it reaches kExplains.
  const Candidate* best = nullptr;
  double best_explains = 0;
  for (const bool loosening : {false, true})
    for (const Candidate& c : tried) {
      if (c.loosens_claim != loosening || (best && best_explains == 1)) continue;
      uint64_t left = base_failures;
      try {  // a candidate the oracle cannot evaluate explains nothing; the verdict stands
        left = failures(c, sample, dtype).elements;
      } catch (const std::exception&) {
        continue;
      }
      const double explains = left >= base_failures ? 0 : 1 - double(left) / base_failures;
      if (explains > best_explains) best = &c, best_explains = explains;
    }
  if (!best || best_explains < kExplains) return isolated(failed, said);
  Diagnosis d;
  d.cause = best->cause;
  d.matches = best->flags;
  d.explains = best_explains;
  d.detail = fmt::format(
      "{}: {} of the {} failing elements on {} of {} rows, sampled, pass under it", best->detail,
      best_explains == 1 ? std::string("every one") : fmt::format("{:.1f}%", 100 * best_explains),
      base_failures, sampled_rows, rows);
  return d;
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

}  // namespace pev::reports
