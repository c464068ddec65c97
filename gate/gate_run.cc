// run_gate (docs/architecture.md §8): each subject opened once, then each band measured (a registry
// entry on sampled blocks, a table whole through verify's pass), judged against its record and,
// when it fails, the element that decides it named.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>

#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/encoding/model_config.h"
#include "peverify/encoding/rope.h"
#include "peverify/gate/gate.h"
#include "peverify/gate/gate_element.h"
#include "peverify/gate/gate_positions.h"
#include "peverify/measure/judge.h"
#include "peverify/measure/sampling.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"
#include "peverify/tables/position_ids.h"
#include "peverify/tables/table_stream.h"
#include "peverify/verify/verify.h"

namespace pev::gate {
namespace {

constexpr uint64_t kHeadRows = 4096;  // the first band is measured whole up to this many rows
constexpr int kBlocksPerBand = 16;    // then blocks of kBlockRows on a log scale
constexpr uint64_t kBlockRows = 16;

// Blocks of one band: the whole head (up to kHeadRows rows) of a band that starts at 0 or is
// short, else kBlocksPerBand blocks of kBlockRows rows on a log scale.
std::vector<measure::RowBlock> band_blocks(const GateBand& b) {
  const uint64_t size = b.last - b.first + 1;
  if (b.first == 0 || size <= kHeadRows) return {{b.first, std::min(size, kHeadRows)}};
  return measure::log_spaced_blocks(b.first, b.last + 1 - kBlockRows, kBlocksPerBand - 1,
                                    kBlockRows, /*include_lo=*/true);
}

// Every registry subject is measured on the same blocks: their exact values, computed once.
class RegistryExactValues {
 public:
  const std::vector<double>& of(const TableSpec& part, uint64_t n) {
    const std::string key =
        fmt::format("{}/{:a}/{}/{}/{}", part.d_model, part.base, static_cast<int>(part.schedule),
                    static_cast<int>(part.layout), part.start);
    auto [it, fresh] = cache_.try_emplace({key, n});
    if (fresh) it->second = oracle::exact_values(part, n);
    return it->second;
  }

 private:
  std::map<std::pair<std::string, uint64_t>, std::vector<double>> cache_;
};

// A subject as the bands measure it: a registry entry on the file's grid, or a table file (its
// width checked against the declaration, its position ids read, its recipe's sequence length set).
struct OpenSubject {
  explicit OpenSubject(const GateSubject& g) : declared(g) {}
  const GateSubject& declared;
  const core::Implementation* impl = nullptr;
  std::optional<TableStream> table;
  std::optional<RowPositions> ids;  // a table subject's position ids, when given
  TableSpec spec;
  std::string name;
  Dtype output = Dtype::kFloat32;
  Claim claim;  // the gate records errors; the claim gives the budget ratio and the fixed signs
  std::optional<measure::Judge> judge;
  std::unique_ptr<oracle::Engine> engine;  // table subjects: their spec's, recipe included

  uint64_t last_position() const {
    return impl ? impl->max_position : ids ? ids->max_position() : spec.start + table->rows() - 1;
  }
  double steps_since_direct(uint64_t pos) const {
    return impl ? static_cast<double>(impl->steps_since_direct(pos)) : 0.0;
  }
};

void open_table_subject(OpenSubject& s) {
  const GateSubject& g = s.declared;
  ReadOptions ro;
  if (!g.dtype.empty()) ro.dtype = parse_dtype(g.dtype);
  if (!g.tensor.empty()) ro.tensor = g.tensor;
  s.table = open_table(g.table_path, ro);
  TableSpec& spec = s.spec;
  const bool half = spec.layout == Layout::kRopeCos || spec.layout == Layout::kRopeSin;
  if (spec.d_model == 0)
    spec.d_model = static_cast<int>(half ? 2 * s.table->width() : s.table->width());
  if (static_cast<uint64_t>(half ? spec.d_model / 2 : spec.d_model) != s.table->width())
    throw FileError(
        fmt::format("{}: the table is {} wide, but d_model {} with layout {} needs {} columns",
                    printable(g.table, 160), s.table->width(), spec.d_model, name_of(spec.layout),
                    half ? spec.d_model / 2 : spec.d_model));
  if (!g.positions_path.empty()) {
    s.ids = read_position_ids(g.positions_path);
    if (auto err = validate_positions(*s.ids, spec, s.table->rows()))
      throw FileError(printable(g.positions, 160) + ": " + *err);
    set_sequence_length(spec, *s.ids);
  } else {
    set_sequence_length(spec, s.table->rows());
    if (auto err = validate_range(spec, s.table->rows()))
      throw FileError(printable(g.table, 160) + ": " + *err);
  }
}

std::unique_ptr<OpenSubject> open_subject(const GateSubject& g, const BudgetFile& file) {
  auto s = std::make_unique<OpenSubject>(g);
  s->impl = g.impl.empty() ? nullptr : core::find_implementation(g.impl);
  s->spec = g.spec;
  if (s->impl)
    s->spec = grid_spec(file.d_model, file.base);
  else
    open_table_subject(*s);
  s->name = s->impl ? g.impl : g.table;
  s->output = s->impl ? s->impl->output : s->table->dtype();
  s->claim = s->impl ? s->impl->claim : Claim::model(Dtype::kFloat32);
  s->judge.emplace(s->spec, s->claim, s->output);
  if (!s->impl) s->engine = oracle::make_fast_engine(s->spec, Dtype::kFloat64);
  return s;
}

// One band of a subject: which rows it holds (clipped to the subject's range), and its blocks of
// (got, exact) values, for the measuring pass of implementations and for naming the element of a
// regression.
struct BandRows {
  GateBand clipped;
  PositionedBand at;  // at position ids: the file rows whose ids fall in the band
  uint64_t rows() const { return clipped.last - clipped.first + 1; }
};

void visit_band(const OpenSubject& s, const BandRows& band, RegistryExactValues& exact,
                const BlockVisitor& visit) {
  if (s.ids) return visit_rows(band.at, *s.table, s.spec, *s.engine, visit);
  if (s.impl) {
    for (const auto& [first, n] : band_blocks(band.clipped)) {
      TableSpec part = s.spec;
      part.start = first;
      const std::vector<double> got = core::generate(*s.impl, part, n).values();
      visit(first, n, got.data(), exact.of(part, n).data());
    }
    return;
  }
  const uint64_t block = std::max<uint64_t>(1, (uint64_t{1} << 16) / s.table->width());
  std::vector<double> got;
  for (uint64_t first = band.clipped.first; first <= band.clipped.last; first += block) {
    const uint64_t n = std::min(block, band.clipped.last - first + 1);
    TableSpec part = s.spec;
    part.start = first;
    got.resize(n * s.table->width());
    s.table->read_rows(first - s.spec.start, n, got.data());
    visit(first, n, got.data(), oracle::compute_table(*s.engine, part, n).exact.data());
  }
}

// What measuring a band gave: its figures, the worst elements outside the claim (NaN, Inf and
// wrong signs first) and, for tables, the failed verdicts no record overrides (verify's
// consistency, and the layout's copies of a value differing).
struct BandMeasurement {
  measure::Figures figures;
  std::vector<measure::Finding> worst;
  std::vector<properties::PropertyVerdict> structural;
  std::vector<double> column_max_abs;  // tables: per column
  std::string coverage;
  std::string diagnosis;  // tables with elements outside the claim: verify's diagnosis line
};

// A registry entry: its sampled blocks through the judge.
BandMeasurement measure_sampled(const OpenSubject& s, const BandRows& band,
                                RegistryExactValues& exact) {
  BandMeasurement m;
  uint64_t sampled = 0;
  const int width = table_width(s.spec);
  visit_band(s, band, exact, [&](uint64_t first, uint64_t n, const double* got, const double* x) {
    for (uint64_t r = 0; r < n; ++r)
      s.judge->add_row(first + r, s.steps_since_direct(first + r), got + r * width, x + r * width,
                       m.figures, &m.worst);
    sampled += n;
  });
  m.coverage = sampled == band.rows()
                   ? fmt::format("every one of {} positions", band.rows())
                   : fmt::format("sampled {} of {} positions", sampled, band.rows());
  return m;
}

// A table: every element of the band, through verify's own pass and memory bound.
BandMeasurement measure_whole(const OpenSubject& s, const BandRows& band) {
  const uint64_t row0 = band.clipped.first - s.spec.start;
  const uint64_t width = s.table->width();
  const TableStream& table = *s.table;
  const bool ids = s.ids.has_value();
  verify::TableInput input{s.declared.table,
                           table.description(),
                           table.dtype(),
                           ids ? band.at.rows.size() : band.rows(),
                           [&](uint64_t first, uint64_t n, double* out) {
                             if (!ids) return table.read_rows(row0 + first, n, out);
                             for (uint64_t i = 0; i < n; ++i)
                               table.read_rows(band.at.rows[first + i], 1, out + i * width);
                           },
                           {}};
  verify::VerifyOptions options;
  options.spec = s.spec;
  options.spec.start = ids ? 0 : band.clipped.first;
  if (ids) {
    options.positions = band.at.ids;
    options.positions_name = s.declared.positions;
  }
  options.claim = s.claim;
  options.source = s.declared.model_config;  // a config's parameters: no --base to offer
  options.head_dim = s.declared.head_dim;
  for (auto [name, other] : s.declared.other_layer_types) {  // declared as the band is
    other.start = options.spec.start;
    if (needs_sequence_length(other.rope)) other.rope.sequence_length = s.last_position() + 1;
    options.other_layer_types.emplace_back(name, other);
  }
  options.column_max_abs = true;
  verify::VerifyResult r = verify_table(std::move(input), options);
  BandMeasurement m;
  m.figures = r.oracle;
  m.column_max_abs = std::move(r.column_max_abs);
  // verify names the band's rows; the file's rows are what the user can look up.
  const auto file_rows = [&](std::vector<measure::Finding>& findings) {
    if (ids)
      for (measure::Finding& f : findings)
        if (f.row) f.row = band.at.rows[*f.row];
  };
  for (properties::PropertyVerdict& v : r.verdicts) file_rows(v.worst);
  for (const properties::PropertyVerdict& v : r.verdicts) {
    if (v.property == "oracle") m.worst = v.worst;
    if (v.property == "oracle" && !v.holds && r.diagnosis) {
      // The band was declared from its first position; the subject, whose "start" the user
      // edits, from its own.
      if (r.diagnosis->positions_shift != 0 && !ids)
        r.diagnosis->matches = {
            fmt::format(R"("start": {} in the budgets)",
                        static_cast<int64_t>(s.spec.start) + r.diagnosis->positions_shift)};
      m.diagnosis = verify::to_text(*r.diagnosis);
    }
    if (v.property == "consistent" && !v.holds) m.structural.push_back(v);
    if (v.property == "bounded" && v.figures.count("copies_differ") &&
        v.figures.at("copies_differ") > 0) {
      properties::PropertyVerdict copies = v;  // its copies alone: the rest is the records'
      copies.summary = fmt::format("{:.0f} elements differ from the other copy of their value",
                                   v.figures.at("copies_differ"));
      std::erase_if(copies.worst,
                    [](const measure::Finding& f) { return !properties::names_differing_copy(f); });
      m.structural.push_back(copies);
    }
  }
  m.coverage = fmt::format("every one of {} elements", m.figures.elements);
  return m;
}

BandFigures band_figures(const measure::Figures& f, const std::vector<double>& column_max_abs) {
  BandFigures b;
  const int group = column_group_width(static_cast<int>(column_max_abs.size()));
  for (size_t c = 0; c < column_max_abs.size(); ++c) {
    if (c % group == 0) b.column_max_abs.push_back(0.0);
    b.column_max_abs.back() = std::max(b.column_max_abs.back(), column_max_abs[c]);
  }
  b.max_abs = f.max_abs;
  b.max_ulp = f.max_ulp_floored;
  b.max_budget_ratio = f.worst_fraction;
  b.elements = f.elements;
  b.nan = f.nan;
  b.inf = f.inf;
  b.wrong_sign = f.failed_sign;
  return b;
}

// The element a regressed band names: NaN, Inf or a wrong sign if the worst elements hold one
// (else the worst of them); else the largest element by the first figure above its record,
// scanned again (the measuring pass keeps no positions).
std::optional<measure::Finding> deciding_element(const OpenSubject& s, const BandRows& band,
                                                 const GateOutcome& o,
                                                 const std::vector<measure::Finding>& worst,
                                                 RegistryExactValues& exact) {
  if (o.measured.nan || o.measured.inf || o.measured.wrong_sign) {
    for (const measure::Finding& f : worst)
      if (f.what != "number") return f;
    if (!worst.empty()) return worst.front();
    return std::nullopt;
  }
  if (!o.recorded) return std::nullopt;
  const auto largest = [&](double BandFigures::*figure, double record, ColumnRange columns) {
    measure::Finding f = largest_element(
        [&](const BlockVisitor& visit) { visit_band(s, band, exact, visit); }, *s.judge,
        [&](uint64_t pos) { return s.steps_since_direct(pos); },  // as the measuring pass counts
        figure, record, columns);
    if (s.ids) f.row = row_holding(band.at, *s.table, f.pos, f.column, f.got);
    return f;
  };
  for (double BandFigures::*figure :
       {&BandFigures::max_abs, &BandFigures::max_ulp, &BandFigures::max_budget_ratio}) {
    const double record = (*o.recorded).*figure;
    if (!std::isnan(record) && !(o.measured.*figure <= record)) return largest(figure, record, {});
  }
  if (const auto g = column_group_above_record(o.measured, *o.recorded)) {
    const int group = column_group_width(s.judge->width()), first = static_cast<int>(*g) * group;
    return largest(&BandFigures::max_abs, o.recorded->column_max_abs[*g], {first, first + group});
  }
  return std::nullopt;
}

GateOutcome measure_band(const OpenSubject& s, const GateBand& band, RegistryExactValues& exact) {
  GateOutcome o;
  o.subject = s.name;
  o.band = band.name();
  o.ceilings = ceilings_of(s.spec, s.output);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t last_pos = s.last_position();
  BandRows rows{{band.first, std::min(band.last, last_pos)},
                s.ids ? rows_in_band(*s.ids, band.first, band.last) : PositionedBand{}};
  if ((!s.ids && band.first < s.spec.start) || band.first > last_pos ||
      (s.ids && rows.at.rows.empty()) || (s.impl && s.impl->available && !s.impl->available())) {
    o.skipped = true;
    o.message = "outside the valid range";
    return o;
  }
  const BandMeasurement m = s.impl ? measure_sampled(s, rows, exact) : measure_whole(s, rows);
  o.coverage = m.coverage;
  o.diagnosis = m.diagnosis;
  o.measured = band_figures(m.figures, m.column_max_abs);
  std::vector<std::string> structural;
  for (const properties::PropertyVerdict& v : m.structural) {
    structural.push_back(v.summary);
    if (!o.element && !v.worst.empty()) o.element = v.worst.front();
  }
  o.structural = fmt::format("{}", fmt::join(structural, "; "));
  const auto rec = s.declared.records.find(o.band);
  judge_outcome(
      o, rec == s.declared.records.end() ? std::nullopt : std::optional<BandFigures>(rec->second));
  if (o.regressed && !o.element) o.element = deciding_element(s, rows, o, m.worst, exact);
  if (o.element) o.message += "; at " + describe_element(*o.element);
  o.message += " (" + o.coverage + ")";
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return o;
}

}  // namespace

std::vector<GateOutcome> run_gate(const BudgetFile& file,
                                  const std::function<void(const std::string&)>& progress) {
  std::vector<GateOutcome> outcomes;
  RegistryExactValues exact;
  for (const GateSubject& g : file.subjects) {
    const std::unique_ptr<OpenSubject> subject = open_subject(g, file);
    for (const GateBand& band : file.bands) outcomes.push_back(measure_band(*subject, band, exact));
    progress(subject->name);
  }
  return outcomes;
}

}  // namespace pev::gate
