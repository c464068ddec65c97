#include "peverify/reports/gate/gate.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <sstream>

#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/encoding/model_config.h"
#include "peverify/measure/judge.h"
#include "peverify/measure/sampling.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"
#include "peverify/reports/gate/gate_element.h"
#include "peverify/reports/gate/gate_positions.h"
#include "peverify/reports/verify/verify.h"
#include "peverify/support/html_escape.h"
#include "peverify/tables/atomic_file.h"
#include "peverify/tables/position_ids.h"
#include "peverify/tables/table_stream.h"

namespace pev::reports {
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

std::string format_figures(const BandFigures& f) {
  std::string s;
  const auto add = [&](const char* name, double x) {
    if (std::isnan(x)) return;
    s += fmt::format("{}{} {:.3g}", s.empty() ? "" : ", ", name, x);
  };
  add("max_abs", f.max_abs);
  add("max_ulp", f.max_ulp);
  add("max_budget_ratio", f.max_budget_ratio);
  return s;
}

// A record at or above its ceiling gates nothing: say so.
std::string at_ceiling(const BandFigures& r, const Ceilings& c) {
  if (r.max_abs >= c.max_abs)
    return fmt::format(
        "the record max_abs {:.3g} is at or above what a table of zeros scores "
        "({:.3g}): it gates nothing; rewrite it with --update",
        r.max_abs, c.max_abs);
  if (r.max_ulp >= c.max_ulp)
    return fmt::format(
        "the record max_ulp {:.3g} is at or above what a table of zeros scores "
        "(2^{}): it gates nothing; rewrite it with --update",
        r.max_ulp, std::ilogb(c.max_ulp));
  return "";
}

void judge_records(GateOutcome& o, const std::optional<BandFigures>& recorded) {
  o.recorded = recorded;
  if (!recorded) {
    o.regressed = true;
    o.message = "no recorded budget for this band (measured " + format_figures(o.measured) +
                "; record it with --update)";
    return;
  }
  if (const std::string c = at_ceiling(*recorded, o.ceilings); !c.empty()) {
    o.regressed = true;
    o.message = c;
    return;
  }
  const std::string why = regression(o.measured, *recorded);
  o.regressed = !why.empty();
  o.message = o.regressed ? "REGRESSED: " + why
                          : "within budget: measured " + format_figures(o.measured) +
                                " against recorded " + format_figures(*recorded);
}

// The records' verdict, then the consistency verdict, which no record overrides.
void judge_outcome(GateOutcome& o, const std::optional<BandFigures>& recorded) {
  judge_records(o, recorded);
  if (o.inconsistent.empty()) return;
  const bool records_failed = o.regressed && o.message.rfind("REGRESSED: ", 0) == 0;
  o.message = "REGRESSED: " + o.inconsistent + (records_failed ? "; " + o.message.substr(11) : "");
  o.regressed = true;
}

}  // namespace

std::string regression(const BandFigures& m, const BandFigures& r) {
  if (m.nan || m.inf || m.wrong_sign)
    return fmt::format("{} NaN, {} Inf, {} of a sign the claim fixes, which no record allows",
                       m.nan, m.inf, m.wrong_sign);
  std::string why;
  const auto check = [&](const char* name, double measured, double recorded) {
    if (!std::isnan(recorded) && !(measured <= recorded))
      why += fmt::format("{}{} {:.3g} above the record {:.3g}", why.empty() ? "" : "; ", name,
                         measured, recorded);
  };
  check("max_abs", m.max_abs, r.max_abs);
  check("max_ulp", m.max_ulp, r.max_ulp);
  check("max_budget_ratio", m.max_budget_ratio, r.max_budget_ratio);
  return why;
}

std::vector<GateOutcome> run_gate(const BudgetFile& file,
                                  const std::function<void(const std::string&)>& progress) {
  std::vector<GateOutcome> outcomes;
  // Every registry subject is measured on the same blocks: compute their exact values once.
  std::map<std::pair<std::string, uint64_t>, std::vector<double>> exact_cache;
  const auto exact_of = [&](const TableSpec& part, uint64_t n) -> const std::vector<double>& {
    const std::string key =
        fmt::format("{}/{:a}/{}/{}/{}", part.d_model, part.base, static_cast<int>(part.schedule),
                    static_cast<int>(part.layout), part.start);
    auto [it, fresh] = exact_cache.try_emplace({key, n});
    if (fresh) it->second = oracle::exact_values(part, n);
    return it->second;
  };
  for (const GateSubject& g : file.subjects) {
    const core::Implementation* impl = g.impl.empty() ? nullptr : core::find_implementation(g.impl);
    std::optional<TableStream> table;
    std::optional<RowPositions> ids;  // a table subject's position ids, when given
    TableSpec spec = g.spec;
    if (impl) {
      spec = grid_spec(file.d_model, file.base);
    } else {
      ReadOptions ro;
      if (!g.dtype.empty()) ro.dtype = parse_dtype(g.dtype);
      if (!g.tensor.empty()) ro.tensor = g.tensor;
      table = open_table(g.table_path, ro);
      const bool half = spec.layout == Layout::kRopeCos || spec.layout == Layout::kRopeSin;
      if (spec.d_model == 0)
        spec.d_model = static_cast<int>(half ? 2 * table->width() : table->width());
      if (static_cast<uint64_t>(half ? spec.d_model / 2 : spec.d_model) != table->width())
        throw FileError(
            fmt::format("{}: the table is {} wide, but d_model {} with layout {} "
                        "needs {} columns",
                        printable(g.table, 160), table->width(), spec.d_model, name_of(spec.layout),
                        half ? spec.d_model / 2 : spec.d_model));
      if (!g.positions_path.empty()) {
        ids = read_position_ids(g.positions_path);
        if (auto err = validate_positions(*ids, spec, table->rows()))
          throw FileError(printable(g.positions, 160) + ": " + *err);
        set_sequence_length(spec, *ids);
      } else {
        set_sequence_length(spec, table->rows());
        if (auto err = validate_range(spec, table->rows()))
          throw FileError(printable(g.table, 160) + ": " + *err);
      }
    }
    const std::string subject = impl ? g.impl : g.table;
    const Dtype output = impl ? impl->output : table->dtype();
    // The gate records errors; the claim gives the budget ratio and which signs are fixed.
    const Claim claim = impl ? impl->claim : Claim::model(Dtype::kFloat32);
    const measure::Judge judge(spec, claim, output);
    // Table subjects may carry a recipe: their exact values come from an engine of their spec.
    const auto engine = impl ? nullptr : oracle::make_fast_engine(spec, Dtype::kFloat64);
    for (const GateBand& band : file.bands) {
      GateOutcome o;
      o.subject = subject;
      o.band = band.name();
      o.ceilings = ceilings_of(spec, output);
      const auto t0 = std::chrono::steady_clock::now();
      const uint64_t last_pos = impl  ? impl->max_position
                                : ids ? ids->max_position()
                                      : spec.start + table->rows() - 1;
      const PositionedBand at = ids ? rows_in_band(*ids, band.first, band.last) : PositionedBand{};
      if ((!ids && band.first < spec.start) || band.first > last_pos || (ids && at.rows.empty()) ||
          (impl && impl->available && !impl->available())) {
        o.skipped = true;
        o.message = "outside the valid range";
        outcomes.push_back(o);
        continue;
      }
      const GateBand clipped{band.first, std::min(band.last, last_pos)};
      const uint64_t band_rows = clipped.last - clipped.first + 1;
      // The band's blocks of (got, exact), for the measuring pass of implementations and for
      // naming the element of a regression.
      const auto for_each_block = [&](const BlockVisitor& visit) {
        if (ids) return visit_rows(at, *table, spec, *engine, visit);
        if (impl) {
          for (const auto& [first, n] : band_blocks(clipped)) {
            TableSpec part = spec;
            part.start = first;
            const core::GeneratedTable t = core::generate(*impl, part, n);
            std::vector<double> got(n * static_cast<uint64_t>(table_width(part)));
            for (size_t i = 0; i < got.size(); ++i) got[i] = t.value(i);
            visit(first, n, got.data(), exact_of(part, n).data());
          }
          return;
        }
        const uint64_t block = std::max<uint64_t>(1, (uint64_t{1} << 16) / table->width());
        std::vector<double> got;
        for (uint64_t first = clipped.first; first <= clipped.last; first += block) {
          const uint64_t n = std::min(block, clipped.last - first + 1);
          TableSpec part = spec;
          part.start = first;
          got.resize(n * table->width());
          table->read_rows(first - spec.start, n, got.data());
          visit(first, n, got.data(), oracle::compute_table(*engine, part, n).exact.data());
        }
      };
      measure::Figures measured;
      std::vector<measure::Finding> worst;  // outside the claim: NaN, Inf, wrong signs first
      std::optional<properties::Verdict> consistent;
      if (impl) {
        uint64_t sampled = 0;
        for_each_block([&](uint64_t first, uint64_t n, const double* got, const double* exact) {
          const int width = table_width(spec);
          for (uint64_t r = 0; r < n; ++r)
            judge.add_row(first + r, static_cast<double>(impl->steps_since_direct(first + r)),
                          got + r * width, exact + r * width, measured, &worst);
          sampled += n;
        });
        o.coverage = sampled == band_rows
                         ? fmt::format("every one of {} positions", band_rows)
                         : fmt::format("sampled {} of {} positions", sampled, band_rows);
      } else {
        // Every element, through verify's own pass and memory bound.
        const uint64_t row0 = clipped.first - spec.start;
        const uint64_t width = table->width();
        TableInput input{g.table,
                         table->description(),
                         table->dtype(),
                         ids ? at.rows.size() : band_rows,
                         [&](uint64_t first, uint64_t n, double* out) {
                           if (!ids) return table->read_rows(row0 + first, n, out);
                           for (uint64_t i = 0; i < n; ++i)
                             table->read_rows(at.rows[first + i], 1, out + i * width);
                         },
                         {}};
        VerifyOptions options;
        options.spec = spec;
        options.spec.start = ids ? 0 : clipped.first;
        if (ids) {
          options.positions = at.ids;
          options.positions_name = g.positions;
        }
        options.budget = claim;
        const VerifyResult r = verify_table(std::move(input), options);
        measured = r.oracle;
        for (const properties::Verdict& v : r.verdicts) {
          if (v.property == "oracle") worst = v.worst;
          if (v.property == "consistent") consistent = v;
        }
        o.coverage = fmt::format("every one of {} elements", measured.elements);
      }
      o.measured.max_abs = measured.max_abs;
      o.measured.max_ulp = measured.max_ulp_floored;
      o.measured.max_budget_ratio = measured.worst_fraction;
      o.measured.elements = measured.elements;
      o.measured.nan = measured.nan;
      o.measured.inf = measured.inf;
      o.measured.wrong_sign = measured.failed_sign;
      if (consistent && !consistent->holds) {
        o.inconsistent = consistent->summary;
        if (!consistent->worst.empty()) o.element = consistent->worst.front();
      }
      const auto rec = g.budgets.find(o.band);
      judge_outcome(
          o, rec == g.budgets.end() ? std::nullopt : std::optional<BandFigures>(rec->second));
      if (o.regressed && !o.element) {
        if (o.measured.nan || o.measured.inf || o.measured.wrong_sign) {
          // NaN, Inf or a wrong sign if the worst elements hold one, else the worst of them.
          for (const measure::Finding& f : worst)
            if (f.what != "number") {
              o.element = f;
              break;
            }
          if (!o.element && !worst.empty()) o.element = worst.front();
        } else if (o.recorded) {
          for (double BandFigures::*figure :
               {&BandFigures::max_abs, &BandFigures::max_ulp, &BandFigures::max_budget_ratio})
            if (!std::isnan((*o.recorded).*figure) &&
                !(o.measured.*figure <= (*o.recorded).*figure)) {
              o.element = largest_element(
                  for_each_block, judge,
                  [&](uint64_t pos) {  // as the measuring pass counts them
                    return impl ? static_cast<double>(impl->steps_since_direct(pos)) : 0.0;
                  },
                  figure, (*o.recorded).*figure);
              if (ids)
                o.element->row =
                    row_holding(at, *table, o.element->pos, o.element->column, o.element->got);
              break;
            }
        }
      }
      if (o.element) o.message += "; at " + describe_element(*o.element);
      o.message += " (" + o.coverage + ")";
      o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      outcomes.push_back(o);
    }
    progress(subject);
  }
  return outcomes;
}

void compare_with(const BudgetFile& file, std::vector<GateOutcome>& outcomes) {
  for (GateOutcome& o : outcomes) {
    if (o.skipped) continue;
    for (const GateSubject& g : file.subjects) {
      if ((g.impl.empty() ? g.table : g.impl) != o.subject) continue;
      const auto rec = g.budgets.find(o.band);
      judge_outcome(
          o, rec == g.budgets.end() ? std::nullopt : std::optional<BandFigures>(rec->second));
    }
  }
}

BudgetFile updated(const BudgetFile& file, const std::vector<GateOutcome>& outcomes) {
  BudgetFile f = file;
  for (GateSubject& g : f.subjects) {
    const std::string subject = g.impl.empty() ? g.table : g.impl;
    g.budgets.clear();
    for (const GateOutcome& o : outcomes) {
      if (o.subject != subject || o.skipped) continue;
      BandFigures b;
      const double abs = round_up_2(o.measured.max_abs), ulp = round_up_2(o.measured.max_ulp);
      if (abs < o.ceilings.max_abs) b.max_abs = abs;
      if (ulp < o.ceilings.max_ulp) b.max_ulp = ulp;
      if (std::isnan(b.max_abs) || std::isnan(b.max_ulp))
        b.max_budget_ratio = round_up_2(o.measured.max_budget_ratio);
      g.budgets[o.band] = b;
    }
  }
  return f;
}

std::string junit_xml(const std::vector<GateOutcome>& outcomes) {
  std::map<std::string, std::vector<const GateOutcome*>> by_subject;
  size_t failures = 0, tests = 0;
  for (const GateOutcome& o : outcomes) {
    by_subject[o.subject].push_back(&o);
    ++tests;
    failures += o.regressed;
  }
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"peverify check\" tests=\"" << tests << "\" failures=\"" << failures
    << "\">\n";
  for (const auto& [subject, list] : by_subject) {
    size_t f = 0;
    for (const GateOutcome* o : list) f += o->regressed;
    x << "  <testsuite name=\"" << html_escape(subject) << "\" tests=\"" << list.size()
      << "\" failures=\"" << f << "\">\n";
    for (const GateOutcome* o : list) {
      x << "    <testcase classname=\"" << html_escape(subject) << "\" name=\"positions " << o->band
        << "\" time=\"" << o->seconds << "\"";
      if (o->regressed)
        x << ">\n      <failure message=\"" << html_escape(o->message) << "\"/>\n    </testcase>\n";
      else if (o->skipped)
        x << ">\n      <skipped message=\"" << html_escape(o->message) << "\"/>\n    </testcase>\n";
      else
        x << "/>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

}  // namespace pev::reports
