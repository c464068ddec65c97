#include "reports/gate.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/generate.h"
#include "core/registry.h"
#include "measure/judge.h"
#include "measure/sampling.h"
#include "oracle/table.h"
#include "tables/atomic_file.h"
#include "tables/table_file.h"

namespace pev::reports {
namespace {

constexpr uint64_t kHeadRows = 4096;  // the first band is measured whole up to this many rows
constexpr int kBlocksPerBand = 16;    // then blocks of kBlockRows on a log scale
constexpr uint64_t kBlockRows = 16;

double json_number(const nlohmann::json& j) {
  if (j.is_string() && j.get<std::string>() == "inf") return INFINITY;
  return j.get<double>();
}

nlohmann::json number_json(double x) { return std::isfinite(x) ? nlohmann::json(x) : "inf"; }

// Two significant digits, rounded up: never below the measured value, and short in the file.
double round_up_2(double x) {
  if (!(x > 0) || !std::isfinite(x)) return x;
  const double step = std::pow(10.0, std::floor(std::log10(x)) - 1);
  double r = std::strtod(fmt::format("{:.1e}", std::ceil(x / step) * step).c_str(), nullptr);
  while (r < x) r = std::strtod(fmt::format("{:.1e}", r + step).c_str(), nullptr);
  return r;
}

// Blocks of one band: the whole head (up to kHeadRows rows) of a band that starts at 0 or is
// short, else kBlocksPerBand blocks of kBlockRows rows on a log scale.
std::vector<measure::RowBlock> band_blocks(const GateBand& b) {
  const uint64_t size = b.last - b.first + 1;
  if (b.first == 0 || size <= kHeadRows) return {{b.first, std::min(size, kHeadRows)}};
  return measure::log_spaced_blocks(b.first, b.last + 1 - kBlockRows, kBlocksPerBand - 1,
                                    kBlockRows, /*include_lo=*/true);
}

std::string format_figures(const BandFigures& f) {
  return fmt::format("max_abs {:.3g}, max_ulp {:.3g}", f.max_abs, f.max_ulp);
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string GateBand::name() const { return std::to_string(first) + "-" + std::to_string(last); }

BudgetFile read_budget_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw FileError("cannot read budget file " + path);
  BudgetFile f;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.at("version").get<int>() != 1) throw FileError(path + ": unsupported version");
    f.d_model = j.at("grid").at("d_model").get<int>();
    f.base = j.at("grid").at("base").get<double>();
    for (const auto& b : j.at("grid").at("bands")) {
      const GateBand band{b.at(0).get<uint64_t>(), b.at(1).get<uint64_t>()};
      if (band.last < band.first) throw FileError(path + ": band " + band.name() + " is empty");
      f.bands.push_back(band);
    }
    for (const auto& s : j.at("subjects")) {
      GateSubject g;
      g.impl = s.value("impl", "");
      g.table = s.value("table", "");
      if (g.impl.empty() == g.table.empty())
        throw FileError(path + ": each subject names exactly one of impl and table");
      if (!g.impl.empty() && !core::find_implementation(g.impl))
        throw FileError(path + ": unknown implementation " + g.impl);
      g.spec.d_model = s.value("d_model", f.d_model);
      g.spec.base = s.value("base", f.base);
      g.spec.start = s.value("start", uint64_t{0});
      if (auto l = parse_layout(s.value("layout", "interleaved")))
        g.spec.layout = *l;
      else
        throw FileError(path + ": unknown layout in subject " + g.impl + g.table);
      if (auto sc = parse_schedule(s.value("schedule", "paper")))
        g.spec.schedule = *sc;
      else
        throw FileError(path + ": unknown schedule in subject " + g.impl + g.table);
      g.dtype = s.value("dtype", "");
      g.tensor = s.value("tensor", "");
      if (auto err = validate(g.spec)) throw FileError(path + ": " + *err);
      if (s.contains("budgets"))
        for (const auto& [band, b] : s.at("budgets").items())
          g.budgets[band] = {json_number(b.at("max_abs")), json_number(b.at("max_ulp")), 0};
      f.subjects.push_back(g);
    }
  } catch (const nlohmann::json::exception& e) {
    throw FileError(path + ": malformed budget file: " + e.what());
  }
  if (auto err = validate(grid_spec(f.d_model, f.base))) throw FileError(path + ": " + *err);
  return f;
}

nlohmann::json to_json(const BudgetFile& f) {
  nlohmann::json j;
  j["version"] = 1;
  j["about"] =
      "peverify check budgets: the recorded maximum error of each implementation per position "
      "band (measured against the exact value; rounded up to two significant digits). "
      "`peverify check --budgets FILE` fails when a measurement exceeds its record; `--update` "
      "rewrites the records.";
  nlohmann::json bands = nlohmann::json::array();
  for (const GateBand& b : f.bands) bands.push_back({b.first, b.last});
  j["grid"] = {{"d_model", f.d_model}, {"base", f.base}, {"bands", bands}};
  j["subjects"] = nlohmann::json::array();
  for (const GateSubject& g : f.subjects) {
    nlohmann::json s;
    if (!g.impl.empty()) {
      s["impl"] = g.impl;
    } else {
      s["table"] = g.table;
      s["d_model"] = g.spec.d_model;
      s["base"] = g.spec.base;
      s["start"] = g.spec.start;
      s["layout"] = name_of(g.spec.layout);
      s["schedule"] = name_of(g.spec.schedule);
      if (!g.dtype.empty()) s["dtype"] = g.dtype;
      if (!g.tensor.empty()) s["tensor"] = g.tensor;
    }
    nlohmann::json budgets = nlohmann::json::object();
    for (const auto& [band, b] : g.budgets)
      budgets[band] = {{"max_abs", number_json(b.max_abs)}, {"max_ulp", number_json(b.max_ulp)}};
    s["budgets"] = budgets;
    j["subjects"].push_back(s);
  }
  return j;
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
    std::optional<LoadedTable> loaded;
    if (!impl) {
      ReadOptions ro;
      if (!g.dtype.empty()) ro.dtype = parse_dtype(g.dtype);
      if (!g.tensor.empty()) ro.tensor = g.tensor;
      loaded = read_table(g.table, ro);
    }
    TableSpec spec = g.spec;
    if (impl) spec = grid_spec(file.d_model, file.base);
    const std::string subject = impl ? g.impl : g.table;
    const Dtype output = impl ? impl->output : loaded->dtype;
    // The gate records errors, not verdicts: the claim only fills in the figures' budget terms.
    const measure::Judge judge(spec, impl ? impl->claim : Claim::model(Dtype::kFloat32), output);
    for (const GateBand& band : file.bands) {
      GateOutcome o;
      o.subject = subject;
      o.band = band.name();
      const auto t0 = std::chrono::steady_clock::now();
      const uint64_t first_row_pos = spec.start;
      const uint64_t last_pos = impl ? impl->max_position : spec.start + loaded->rows - 1;
      if (band.first < first_row_pos || band.first > last_pos ||
          (impl && impl->available && !impl->available())) {
        o.skipped = true;
        o.message = "outside the valid range";
        outcomes.push_back(o);
        continue;
      }
      GateBand clipped{band.first, std::min(band.last, last_pos)};
      measure::Figures measured;
      for (const auto& [first, n] : band_blocks(clipped)) {
        TableSpec part = spec;
        part.start = first;
        const std::vector<double>& exact = exact_of(part, n);
        std::vector<double> got;
        if (impl) {
          const core::GeneratedTable t = core::generate(*impl, part, n);
          got.resize(t.size());
          for (size_t i = 0; i < got.size(); ++i) got[i] = t.value(i);
        } else {
          const uint64_t width = loaded->width;
          const auto from =
              loaded->values.begin() + static_cast<std::ptrdiff_t>((first - spec.start) * width);
          got.assign(from, from + static_cast<std::ptrdiff_t>(n * width));
        }
        const int width = table_width(part);
        for (uint64_t r = 0; r < n; ++r)
          judge.add_row(first + r,
                        static_cast<double>(impl ? impl->steps_since_direct(first + r) : 0),
                        got.data() + r * width, exact.data() + r * width, measured);
      }
      o.measured = {measured.max_abs_or_inf(), measured.max_ulp_or_inf(), measured.elements};
      o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const auto rec = g.budgets.find(o.band);
      if (rec == g.budgets.end()) {
        o.regressed = true;
        o.message = "no recorded budget for this band (measured " + format_figures(o.measured) +
                    "; record it with --update)";
      } else {
        o.recorded = rec->second;
        o.regressed =
            o.measured.max_abs > rec->second.max_abs || o.measured.max_ulp > rec->second.max_ulp;
        o.message = (o.regressed ? "REGRESSED: measured " : "within budget: measured ") +
                    format_figures(o.measured) + " against recorded " + format_figures(rec->second);
      }
      outcomes.push_back(o);
    }
    progress(subject);
  }
  return outcomes;
}

BudgetFile updated(const BudgetFile& file, const std::vector<GateOutcome>& outcomes) {
  BudgetFile f = file;
  for (GateSubject& g : f.subjects) {
    const std::string subject = g.impl.empty() ? g.table : g.impl;
    g.budgets.clear();
    for (const GateOutcome& o : outcomes)
      if (o.subject == subject && !o.skipped)
        g.budgets[o.band] = {round_up_2(o.measured.max_abs), round_up_2(o.measured.max_ulp), 0};
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
    x << "  <testsuite name=\"" << xml_escape(subject) << "\" tests=\"" << list.size()
      << "\" failures=\"" << f << "\">\n";
    for (const GateOutcome* o : list) {
      x << "    <testcase classname=\"" << xml_escape(subject) << "\" name=\"positions " << o->band
        << "\" time=\"" << o->seconds << "\"";
      if (o->regressed)
        x << ">\n      <failure message=\"" << xml_escape(o->message) << "\"/>\n    </testcase>\n";
      else if (o->skipped)
        x << ">\n      <skipped message=\"" << xml_escape(o->message) << "\"/>\n    </testcase>\n";
      else
        x << "/>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

}  // namespace pev::reports
