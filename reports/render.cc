#include "reports/render.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "reports/plots.h"
#include "tables/atomic_file.h"

namespace pev::reports {
namespace {

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nullptr; }

std::string g3(const nlohmann::json& x) {
  if (x.is_null()) return "inf";
  return fmt::format("{:.3g}", x.get<double>());
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

const nlohmann::json* verdict(const nlohmann::json& entry, const std::string& property) {
  for (const auto& v : entry["properties"])
    if (v["property"] == property) return &v;
  return nullptr;
}

std::string verdict_cell(const nlohmann::json& entry, const std::string& property) {
  const nlohmann::json* v = verdict(entry, property);
  if (!v) return "-";
  return (*v)["holds"].get<bool>() ? "holds" : "FAILS";
}

// The rotary section: per model preset, the recommendation and every entry's figures.
std::string rotary_markdown(const nlohmann::json& r) {
  if (!r.contains("models") || r["models"].empty()) return "";
  std::ostringstream md;
  md << "\n## Rotary caches of real models\n\nEach model's cos/sin cache (`rope-cos-sin`) for "
        "positions 0 .. "
     << r["study"]["rotary_positions"].get<uint64_t>() - 1
     << ", built by every entry with a float32 or bfloat16 output, against the exact values of "
        "its recipe (docs/design.md §12).\n";
  for (const auto& m : r["models"]) {
    const std::string name = m["name"].get<std::string>();
    md << "\n### " << name << ": rotary dim " << m["rotary_dim"] << ", base " << g3(m["base"])
       << ", " << m["recipe"].get<std::string>() << "\n\n";
    md << "| output | target | implementation | evidence |\n|---|---|---|---|\n";
    for (const auto& x : r["recommendations"])
      if (x["model"] == name)
        md << "| " << x["dtype"].get<std::string>() << " | " << x["target"].get<std::string>()
           << " | "
           << (x["implementation"].is_null() ? std::string("none")
                                             : "`" + x["implementation"].get<std::string>() + "`")
           << " | " << x["evidence"].get<std::string>() << " |\n";
    md << "\n| implementation | max abs | outside the claim | horizon 1e-4 | horizon 1e-2 |\n"
          "|---|---|---|---|---|\n";
    for (const auto& e : r["implementations"])
      for (const auto& x : e["models"])
        if (x["model"] == name) {
          const auto horizon = [&](const char* t) {
            return x["horizons"].contains(t) ? std::to_string(x["horizons"][t].get<uint64_t>())
                                             : std::string("never");
          };
          md << "| `" << e["name"].get<std::string>() << "` | " << g3(x["max_abs"]) << " | "
             << x["over_claim"] << " of " << x["elements"] << " | " << horizon("1e-4") << " | "
             << horizon("1e-2") << " |\n";
        }
  }
  return md.str();
}

}  // namespace

nlohmann::json to_json(const StudyResult& s) {
  nlohmann::json j;
  j["schema_version"] = kReportSchemaVersion;
  j["generator"] = "peverify report";
  j["study"] = {{"d_models", s.config.d_models},
                {"bases", s.config.bases},
                {"exhaustive_positions", s.config.exhaustive_positions},
                {"exhaustive_values", s.config.exhaustive_values},
                {"max_position", s.config.max_position},
                {"sampled_blocks", s.config.sampled_blocks},
                {"filter", s.config.filter},
                {"bench", s.config.bench},
                {"rotary_models", s.config.rotary_models},
                {"rotary_positions", s.config.rotary_positions}};
  j["models"] = nlohmann::json::array();
  for (const ModelStudy& m : s.models)
    j["models"].push_back({{"name", m.name},
                           {"rotary_dim", m.rotary_dim},
                           {"base", m.base},
                           {"recipe", m.recipe},
                           {"attention_factor", m.attention}});
  j["seconds"] = s.seconds;
  if (s.bench) {
    const nlohmann::json b = bench::to_json(*s.bench);
    j["machine"] = b["machine"];
    j["roofline"] = b["roofline"];
  }
  j["implementations"] = nlohmann::json::array();
  for (const EntryResult& e : s.entries) {
    nlohmann::json x;
    x["name"] = e.name;
    x["strategy"] = e.strategy;
    x["compute"] = e.compute;
    x["output"] = e.output;
    x["backend"] = e.backend;
    x["claim"] = e.claim;
    x["description"] = e.description;
    x["max_position"] = e.max_position;
    x["available"] = e.available;
    if (!e.available) x["unavailable_reason"] = e.unavailable_reason;
    if (!e.modelled.empty())
      x["modelled"] = {{"label", "modelled, not measured"}, {"text", e.modelled}};
    x["accuracy"] = {{"max_abs", number(e.max_abs)},
                     {"mean_abs", number(e.mean_abs)},
                     {"max_ulp", number(e.max_ulp)},
                     {"elements", e.elements}};
    x["bands"] = nlohmann::json::array();
    for (const Band& b : e.bands)
      x["bands"].push_back({{"first", b.first},
                            {"last", b.last},
                            {"elements", b.figures.elements},
                            {"max_abs", number(b.figures.max_abs_or_inf())},
                            {"mean_abs", number(b.figures.mean_abs())},
                            {"max_ulp", number(b.figures.max_ulp_or_inf())},
                            {"nan_inf", b.figures.not_numbers()},
                            {"over_claim", b.figures.over_claim}});
    x["properties"] = nlohmann::json::array();
    for (const properties::Verdict& v : e.verdicts)
      x["properties"].push_back(
          {{"property", v.property}, {"holds", v.holds}, {"summary", v.summary}});
    x["fitted_c"] = number(e.fitted_c);
    x["horizons"] = e.horizons;
    x["error_curve"] = nlohmann::json::array();
    for (const auto& [pos, err] : e.error_curve) x["error_curve"].push_back({pos, number(err)});
    x["models"] = nlohmann::json::array();
    for (const ModelResult& m : e.models)
      x["models"].push_back({{"model", m.model},
                             {"elements", m.figures.elements},
                             {"max_abs", number(m.figures.max_abs_or_inf())},
                             {"max_ulp", number(m.figures.max_ulp_or_inf())},
                             {"nan_inf", m.figures.not_numbers()},
                             {"over_claim", m.figures.over_claim},
                             {"horizons", m.horizons}});
    x["values_per_s"] = e.values_per_s ? nlohmann::json(*e.values_per_s) : nullptr;
    x["roofline_ratio"] = e.roofline_ratio ? nlohmann::json(*e.roofline_ratio) : nullptr;
    j["implementations"].push_back(x);
  }
  j["recommendations"] = nlohmann::json::array();
  for (const Recommendation& r : s.recommendations)
    j["recommendations"].push_back(
        {{"model", r.model.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.model)},
         {"dtype", r.dtype},
         {"context", r.context},
         {"target", r.target},
         {"implementation", r.entry.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.entry)},
         {"evidence", r.evidence}});
  return j;
}

std::string to_markdown(const nlohmann::json& r) {
  std::ostringstream md;
  md << "# peverify report\n\n";
  md << "Every error is measured against the exact value (MPFR, correctly rounded). Study: d_model "
     << r["study"]["d_models"].dump() << ", base " << r["study"]["bases"].dump()
     << ", every position below " << r["study"]["exhaustive_positions"]
     << " (as long as rows x d <= " << r["study"]["exhaustive_values"] << "), then "
     << r["study"]["sampled_blocks"] << " sampled blocks up to position "
     << r["study"]["max_position"] << ".";
  if (r.contains("machine"))
    md << " Machine: " << r["machine"]["cpu"].get<std::string>() << ", " << r["machine"]["threads"]
       << " threads.";
  md << " Made by `peverify report` in " << g3(r["seconds"]) << " s.\n\n";

  md << "## Recommendation\n\nThe fastest implementation meeting each target up to each context "
        "length (targets: absolute error, or faithful = under one ulp of the output type).\n\n";
  md << "| output | context | target | implementation | evidence |\n|---|---|---|---|---|\n";
  for (const auto& x : r["recommendations"])
    if (x["model"].is_null())
      md << "| " << x["dtype"].get<std::string>() << " | " << x["context"] << " | "
         << x["target"].get<std::string>() << " | "
         << (x["implementation"].is_null() ? std::string("none")
                                           : "`" + x["implementation"].get<std::string>() + "`")
         << " | " << x["evidence"].get<std::string>() << " |\n";

  md << rotary_markdown(r);
  md << "\n## Implementations\n\n";
  md << "| implementation | claim | max abs | max ulp | bounded | unique | shift | growth (C) | "
        "claim held | horizon 1e-4 | values/s | roofline |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : r["implementations"]) {
    if (!e["available"].get<bool>()) {
      md << "| `" << e["name"].get<std::string>() << "` | " << e["claim"].get<std::string>()
         << " | unavailable here: " << e["unavailable_reason"].get<std::string>()
         << (e.contains("modelled") ? "; " + e["modelled"]["text"].get<std::string>() : "")
         << " |||||||||\n";
      continue;
    }
    md << "| `" << e["name"].get<std::string>() << "` | " << e["claim"].get<std::string>() << " | "
       << g3(e["accuracy"]["max_abs"]) << " | " << g3(e["accuracy"]["max_ulp"]) << " | "
       << verdict_cell(e, "bounded") << " | " << verdict_cell(e, "unique") << " | "
       << verdict_cell(e, "shift") << " | " << verdict_cell(e, "growth") << " ("
       << g3(e["fitted_c"]) << ") | " << verdict_cell(e, "claim") << " | "
       << e["horizons"].value("1e-4", 0) << " | "
       << (e["values_per_s"].is_null() ? "-" : g3(e["values_per_s"])) << " | "
       << (e["roofline_ratio"].is_null() ? "-" : g3(e["roofline_ratio"])) << " |\n";
  }
  md << "\n## Accuracy per position band (max abs error)\n\n| implementation |";
  const auto& first = r["implementations"][0]["bands"];
  for (const auto& b : first) md << " " << b["first"] << "-" << b["last"] << " |";
  md << "\n|---|";
  for (size_t i = 0; i < first.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& e : r["implementations"]) {
    if (!e["available"].get<bool>()) continue;
    md << "| `" << e["name"].get<std::string>() << "` |";
    for (const auto& b : e["bands"])
      md << " " << (b["elements"].get<uint64_t>() ? g3(b["max_abs"]) : std::string("-")) << " |";
    md << "\n";
  }
  md << "\nEach verdict's details, the horizons for every target and the error curves are in "
        "report.json; the plots in index.html.\n";
  return md.str();
}

std::string entries_csv(const nlohmann::json& r) {
  std::ostringstream c;
  c << "implementation,strategy,compute,output,backend,claim,available,max_abs,mean_abs,max_ulp,"
       "bounded,unique,shift,growth,claim_held,fitted_c,horizon_1e-4,horizon_1e-2,"
       "horizon_faithful,values_per_s,roofline_ratio\n";
  for (const auto& e : r["implementations"]) {
    const bool avail = e["available"].get<bool>();
    c << csv_field(e["name"].get<std::string>()) << "," << e["strategy"].get<std::string>() << ","
      << e["compute"].get<std::string>() << "," << e["output"].get<std::string>() << ","
      << e["backend"].get<std::string>() << "," << csv_field(e["claim"].get<std::string>()) << ","
      << (avail ? "yes" : "no") << "," << g3(e["accuracy"]["max_abs"]) << ","
      << g3(e["accuracy"]["mean_abs"]) << "," << g3(e["accuracy"]["max_ulp"]) << ","
      << verdict_cell(e, "bounded") << "," << verdict_cell(e, "unique") << ","
      << verdict_cell(e, "shift") << "," << verdict_cell(e, "growth") << ","
      << verdict_cell(e, "claim") << "," << g3(e["fitted_c"]) << ","
      << e["horizons"].value("1e-4", 0) << "," << e["horizons"].value("1e-2", 0) << ","
      << e["horizons"].value("faithful", 0) << ","
      << (e["values_per_s"].is_null() ? "" : g3(e["values_per_s"])) << ","
      << (e["roofline_ratio"].is_null() ? "" : g3(e["roofline_ratio"])) << "\n";
  }
  return c.str();
}

std::string bands_csv(const nlohmann::json& r) {
  std::ostringstream c;
  c << "implementation,first,last,elements,max_abs,mean_abs,max_ulp,nan_inf,over_claim\n";
  for (const auto& e : r["implementations"])
    for (const auto& b : e["bands"])
      c << csv_field(e["name"].get<std::string>()) << "," << b["first"] << "," << b["last"] << ","
        << b["elements"] << "," << g3(b["max_abs"]) << "," << g3(b["mean_abs"]) << ","
        << g3(b["max_ulp"]) << "," << b["nan_inf"] << "," << b["over_claim"] << "\n";
  return c.str();
}

std::string recommendations_csv(const nlohmann::json& r) {
  std::ostringstream c;
  c << "model,dtype,context,target,implementation,evidence\n";
  for (const auto& x : r["recommendations"])
    c << (x["model"].is_null() ? "" : csv_field(x["model"].get<std::string>())) << ","
      << x["dtype"].get<std::string>() << "," << x["context"] << ","
      << x["target"].get<std::string>() << ","
      << (x["implementation"].is_null() ? "" : csv_field(x["implementation"].get<std::string>()))
      << "," << csv_field(x["evidence"].get<std::string>()) << "\n";
  return c.str();
}

std::string to_html(const nlohmann::json& r,
                    const std::vector<std::pair<std::string, std::string>>& plots_svg) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<title>peverify report</title>\n<style>\n"
       "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}\n"
       "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px "
       "6px}th{background:#f3f3f3}.fail{color:#b00;font-weight:bold}.ok{color:#070}\n"
       "code{font-size:12px}figure{margin:1em 0}svg{max-width:100%;height:auto}\n"
       "</style>\n</head>\n<body>\n";
  h << "<h1>peverify report</h1>\n<p>Every error is measured against the exact value (MPFR, "
       "correctly rounded).";
  if (r.contains("machine"))
    h << " Machine: " << html_escape(r["machine"]["cpu"].get<std::string>()) << ", "
      << r["machine"]["threads"] << " threads.";
  h << " Made by <code>peverify report</code> in " << g3(r["seconds"])
    << " s; the data are in "
       "<a href=\"report.json\">report.json</a>.</p>\n";
  h << "<h2>Recommendation</h2>\n<table><tr><th>output</th><th>context</th><th>target</th>"
       "<th>implementation</th><th>evidence</th></tr>\n";
  for (const auto& x : r["recommendations"])
    if (x["model"].is_null())
      h << "<tr><td>" << x["dtype"].get<std::string>() << "</td><td>" << x["context"] << "</td><td>"
        << x["target"].get<std::string>() << "</td><td><code>"
        << (x["implementation"].is_null() ? "none"
                                          : html_escape(x["implementation"].get<std::string>()))
        << "</code></td><td>" << html_escape(x["evidence"].get<std::string>()) << "</td></tr>\n";
  h << "</table>\n";
  for (const auto& m : r["models"]) {
    const std::string name = m["name"].get<std::string>();
    h << "<h3>Rotary cache: " << html_escape(name) << "</h3>\n<p>rotary dim " << m["rotary_dim"]
      << ", base " << g3(m["base"]) << ", " << html_escape(m["recipe"].get<std::string>())
      << "; positions 0 .. " << r["study"]["rotary_positions"].get<uint64_t>() - 1
      << "</p>\n<table><tr><th>output</th><th>target</th><th>implementation</th><th>evidence</th>"
         "</tr>\n";
    for (const auto& x : r["recommendations"])
      if (x["model"] == name)
        h << "<tr><td>" << x["dtype"].get<std::string>() << "</td><td>"
          << x["target"].get<std::string>() << "</td><td><code>"
          << (x["implementation"].is_null() ? "none"
                                            : html_escape(x["implementation"].get<std::string>()))
          << "</code></td><td>" << html_escape(x["evidence"].get<std::string>()) << "</td></tr>\n";
    h << "</table>\n";
  }
  h << "<h2>Plots</h2>\n";
  if (plots_svg.empty()) h << "<p>No plots: gnuplot was not available.</p>\n";
  for (const auto& [title, svg] : plots_svg) {
    const size_t at = svg.find("<svg");
    h << "<figure><figcaption>" << html_escape(title) << "</figcaption>\n"
      << (at == std::string::npos ? svg : svg.substr(at)) << "\n</figure>\n";
  }
  h << "<h2>Implementations</h2>\n<table><tr><th>implementation</th><th>claim</th><th>max "
       "abs</th><th>max ulp</th><th>bounded</th><th>unique</th><th>shift</th><th>growth "
       "(C)</th><th>claim held</th><th>horizon 1e-4</th><th>values/s</th><th>roofline</th></tr>\n";
  const auto cell = [](const std::string& v) {
    return "<td class=\"" + std::string(v == "FAILS" ? "fail" : "ok") + "\">" + v + "</td>";
  };
  for (const auto& e : r["implementations"]) {
    h << "<tr><td><code>" << html_escape(e["name"].get<std::string>()) << "</code></td><td>"
      << html_escape(e["claim"].get<std::string>()) << "</td>";
    if (!e["available"].get<bool>()) {
      h << "<td colspan=\"10\">unavailable here: "
        << html_escape(e["unavailable_reason"].get<std::string>())
        << (e.contains("modelled")
                ? "; <em>" + html_escape(e["modelled"]["text"].get<std::string>()) + "</em>"
                : "")
        << "</td></tr>\n";
      continue;
    }
    h << "<td>" << g3(e["accuracy"]["max_abs"]) << "</td><td>" << g3(e["accuracy"]["max_ulp"])
      << "</td>" << cell(verdict_cell(e, "bounded")) << cell(verdict_cell(e, "unique"))
      << cell(verdict_cell(e, "shift"))
      << cell(verdict_cell(e, "growth") + " (" + g3(e["fitted_c"]) + ")")
      << cell(verdict_cell(e, "claim")) << "<td>" << e["horizons"].value("1e-4", 0) << "</td><td>"
      << (e["values_per_s"].is_null() ? "-" : g3(e["values_per_s"])) << "</td><td>"
      << (e["roofline_ratio"].is_null() ? "-" : g3(e["roofline_ratio"])) << "</td></tr>\n";
  }
  h << "</table>\n</body>\n</html>\n";
  return h.str();
}

std::vector<std::string> write_report(const nlohmann::json& report, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw FileError("cannot create the report directory " + dir);
  std::vector<std::pair<std::string, std::string>> plots;
  std::string plot_note;
  try {
    plots = draw_plots(report);
  } catch (const std::exception& e) {
    plot_note = e.what();
  }
  const std::vector<std::pair<std::string, std::string>> files = {
      {"report.json", report.dump(2) + "\n"}, {"report.md", to_markdown(report)},
      {"index.html", to_html(report, plots)}, {"implementations.csv", entries_csv(report)},
      {"bands.csv", bands_csv(report)},       {"recommendations.csv", recommendations_csv(report)}};
  std::vector<std::string> written;
  for (const auto& [name, content] : files) {
    const std::string path = dir + "/" + name;
    write_file_atomically(path, [&](std::ostream& out) { out << content; });
    written.push_back(path);
  }
  for (size_t i = 0; i < plots.size(); ++i) {
    const std::string path = dir + "/plot-" + std::to_string(i + 1) + ".svg";
    write_file_atomically(path, [&](std::ostream& out) { out << plots[i].second; });
    written.push_back(path);
  }
  return written;
}

}  // namespace pev::reports
