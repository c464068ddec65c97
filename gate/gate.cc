#include "peverify/gate/gate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "peverify/core/registry.h"
#include "peverify/support/atomic_file.h"
#include "peverify/support/html_escape.h"

namespace pev::gate {

std::string format_figures(const BandFigures& f) {
  std::vector<std::string> figures;
  const auto add = [&](const char* name, double x) {
    if (!std::isnan(x)) figures.push_back(fmt::format("{} {:.3g}", name, x));
  };
  add("max_abs", f.max_abs);
  add("max_ulp", f.max_ulp);
  add("max_budget_ratio", f.max_budget_ratio);
  if (!f.column_max_abs.empty())
    figures.push_back(
        fmt::format("max_abs per column group ({} groups) up to {:.3g}", f.column_max_abs.size(),
                    *std::max_element(f.column_max_abs.begin(), f.column_max_abs.end())));
  return fmt::format("{}", fmt::join(figures, ", "));
}

namespace {

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

// What the records make of a band's measured figures.
struct RecordsVerdict {
  bool regressed = false;
  std::string above_record;  // the figures above their records, when that is why
  std::string message;       // the band's message as far as the records go
};

RecordsVerdict judge_records(const GateOutcome& o, const std::optional<BandFigures>& recorded) {
  if (!recorded)
    return {true, "",
            "no recorded budget for this band (measured " + format_figures(o.measured) +
                "; record it with --update)"};
  if (const std::string c = at_ceiling(*recorded, o.ceilings); !c.empty()) return {true, "", c};
  const std::string why = regression(o.measured, *recorded);
  if (!why.empty()) return {true, why, "REGRESSED: " + why};
  return {false, "",
          "within budget: measured " + format_figures(o.measured) + " against recorded " +
              format_figures(*recorded)};
}

}  // namespace

void judge_outcome(GateOutcome& o, const std::optional<BandFigures>& recorded) {
  o.recorded = recorded;
  const RecordsVerdict records = judge_records(o, recorded);
  o.regressed = records.regressed;
  o.message = records.message;
  // The structural verdicts, which no record overrides, go first.
  if (o.structural.empty()) return;
  o.regressed = true;
  o.message = "REGRESSED: " + o.structural +
              (records.above_record.empty() ? "" : "; " + records.above_record);
}

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
  if (r.column_max_abs.empty() || m.column_max_abs.empty()) return why;
  if (m.column_max_abs.size() != r.column_max_abs.size())
    return why + fmt::format("{}{} column records, but the table has {} column groups",
                             why.empty() ? "" : "; ", r.column_max_abs.size(),
                             m.column_max_abs.size());
  if (const auto g = column_group_above_record(m, r))
    why += fmt::format("{}max_abs {:.3g} of column group {} (of {}) above its record {:.3g}",
                       why.empty() ? "" : "; ", m.column_max_abs[*g], *g, m.column_max_abs.size(),
                       r.column_max_abs[*g]);
  return why;
}

std::optional<size_t> column_group_above_record(const BandFigures& m, const BandFigures& r) {
  if (m.column_max_abs.size() != r.column_max_abs.size()) return std::nullopt;
  std::optional<size_t> worst;
  for (size_t g = 0; g < m.column_max_abs.size(); ++g) {
    const double over = m.column_max_abs[g] / r.column_max_abs[g];
    if (!(m.column_max_abs[g] <= r.column_max_abs[g]) &&
        (!worst || over > m.column_max_abs[*worst] / r.column_max_abs[*worst]))
      worst = g;
  }
  return worst;
}

int column_group_width(int table_width) { return std::max(1, (table_width + 127) / 128); }

void compare_with(const BudgetFile& file, std::vector<GateOutcome>& outcomes) {
  for (GateOutcome& o : outcomes) {
    if (o.skipped) continue;
    for (const GateSubject& g : file.subjects) {
      if ((g.impl.empty() ? g.table : g.impl) != o.subject) continue;
      const auto rec = g.records.find(o.band);
      judge_outcome(
          o, rec == g.records.end() ? std::nullopt : std::optional<BandFigures>(rec->second));
    }
  }
}

BudgetFile updated(const BudgetFile& file, const std::vector<GateOutcome>& outcomes) {
  BudgetFile f = file;
  for (GateSubject& g : f.subjects) {
    const std::string subject = g.impl.empty() ? g.table : g.impl;
    g.records.clear();
    for (const GateOutcome& o : outcomes) {
      if (o.subject != subject || o.skipped) continue;
      BandFigures b;
      const double abs = round_up_2(o.measured.max_abs), ulp = round_up_2(o.measured.max_ulp);
      if (abs < o.ceilings.max_abs) b.max_abs = abs;
      if (ulp < o.ceilings.max_ulp) b.max_ulp = ulp;
      if (std::isnan(b.max_abs) || std::isnan(b.max_ulp))
        b.max_budget_ratio = round_up_2(o.measured.max_budget_ratio);
      for (const double column : o.measured.column_max_abs)
        b.column_max_abs.push_back(round_up_2(column));
      g.records[o.band] = b;
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
        x << ">\n      <failure message=\""
          << html_escape(o->diagnosis.empty() ? o->message : o->message + "; " + o->diagnosis)
          << "\"/>\n    </testcase>\n";
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

}  // namespace pev::gate
