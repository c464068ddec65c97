// The report's CSV files and writing every output of a report into its directory.
#include "peverify/reports/render/render.h"

#include <sstream>

#include "peverify/reports/render/plots.h"
#include "peverify/reports/render/report_text.h"
#include "peverify/support/atomic_file.h"
#include "peverify/support/file_set.h"

namespace pev::reports::render {

namespace {

// A figure that may be null (not measured) or absent (older reports): empty in the CSV.
std::string optional_g3(const nlohmann::json& e, const char* key) {
  return e.contains(key) && !e[key].is_null() ? figure_text(e[key]) : "";
}

}  // namespace

std::string entries_csv(const nlohmann::json& r) {
  std::ostringstream c;
  c << "implementation,strategy,compute,output,backend,claim,available,max_abs,mean_abs,max_ulp,"
       "max_ulp_floored,"
       "bounded,unique,shift,growth,claim_held,fitted_c,horizon_1e-4,horizon_1e-2,"
       "horizon_faithful,values_per_s,values_per_s_min,values_per_s_max,roofline_ratio,measured_"
       "on\n";
  for (const auto& e : r["implementations"]) {
    const bool avail = e["available"].get<bool>();
    c << csv_field(e["name"].get<std::string>()) << "," << e["strategy"].get<std::string>() << ","
      << e["compute"].get<std::string>() << "," << e["output"].get<std::string>() << ","
      << e["backend"].get<std::string>() << "," << csv_field(e["claim"].get<std::string>()) << ","
      << (avail ? "yes" : "no") << "," << figure_text(e["accuracy"]["max_abs"]) << ","
      << figure_text(e["accuracy"]["mean_abs"]) << "," << figure_text(e["accuracy"]["max_ulp"])
      << "," << figure_text(e["accuracy"]["max_ulp_floored"]) << "," << verdict_cell(e, "bounded")
      << "," << verdict_cell(e, "unique") << "," << verdict_cell(e, "shift") << ","
      << verdict_cell(e, "growth") << "," << verdict_cell(e, "claim") << ","
      << figure_text(e["fitted_c"]) << "," << e["horizons"].value("1e-4", 0) << ","
      << e["horizons"].value("1e-2", 0) << "," << e["horizons"].value("faithful", 0) << ","
      << optional_g3(e, "values_per_s") << "," << optional_g3(e, "values_per_s_min") << ","
      << optional_g3(e, "values_per_s_max") << ","
      << (e["roofline_ratio"].is_null() ? "" : figure_text(e["roofline_ratio"]))
      << ","
      // Figures a GPU measured (reports/measured): the device and date; its roofline is its own.
      << (e.contains("measured") ? csv_field(e["measured"]["device"].get<std::string>() + " " +
                                             e["measured"]["date"].get<std::string>())
                                 : "")
      << "\n";
  }
  return c.str();
}

std::string bands_csv(const nlohmann::json& r) {
  std::ostringstream c;
  c << "implementation,first,last,elements,max_abs,mean_abs,max_ulp,max_ulp_floored,nan_inf,"
       "over_claim\n";
  for (const auto& e : r["implementations"])
    for (const auto& b : e["bands"])
      c << csv_field(e["name"].get<std::string>()) << "," << b["first"] << "," << b["last"] << ","
        << b["elements"] << "," << figure_text(b["max_abs"]) << "," << figure_text(b["mean_abs"])
        << "," << figure_text(b["max_ulp"]) << "," << figure_text(b["max_ulp_floored"]) << ","
        << b["nan_inf"] << "," << b["over_claim"] << "\n";
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

std::vector<std::string> write_report(const nlohmann::json& report, const std::string& dir) {
  std::vector<Plot> plots;
  std::string plot_note;
  try {
    plots = draw_plots(report);
  } catch (const std::exception& e) {
    plot_note = e.what();
  }
  // Every file, then the directory: a report that cannot be written whole (a full disk, a
  // read-only directory) leaves nothing behind, no directory either (support/file_set.h).
  FileSet files(dir);
  const auto put = [&](const std::string& name, const std::string& content) {
    files.write(name, [&](std::ostream& out) { out << content; });
  };
  put("report.json", report.dump(2) + "\n");
  put("report.md", to_markdown(report));
  put("index.html", to_html(report, plots, plot_note));
  put("implementations.csv", entries_csv(report));
  put("bands.csv", bands_csv(report));
  put("recommendations.csv", recommendations_csv(report));
  // Every plot beside the CSV of the data it draws.
  for (const Plot& p : plots) {
    put(p.file, p.svg);
    put(p.data_file, p.data_csv);
  }
  return files.commit();
}

}  // namespace pev::reports::render
