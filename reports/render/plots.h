// The report's plots, drawn by gnuplot (Debian's gnuplot-nox, SVG terminal) from report.json:
// error versus position per output type as small multiples (one panel per strategy, the other
// entries greyed beneath; the 1e-4 and 1e-2 targets, the output rounding and the model's u * pos
// drawn), accuracy versus throughput with the Pareto front (its point labels placed so that none
// overlaps another: reports/label_layout.h), and the horizons. Each plot comes with the CSV of
// the data it draws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pev::reports::render {

struct Plot {
  std::string title;
  std::string file;       // "plot-1.svg"
  std::string svg;        // the SVG document
  std::string data_file;  // "plot-1.csv"
  std::string data_csv;   // the data the plot draws
};

// Throws std::runtime_error if gnuplot is missing or fails.
std::vector<Plot> draw_plots(const nlohmann::json& report);

}  // namespace pev::reports::render
