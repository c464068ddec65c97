// The report's plots, drawn by gnuplot (Debian's gnuplot-nox, SVG terminal) from the report's
// JSON: error versus position per output type (log-log), accuracy versus throughput with the
// Pareto front, and horizons.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace pev::reports {

// (title, SVG document) per plot. Throws std::runtime_error if gnuplot is missing or fails.
std::vector<std::pair<std::string, std::string>> draw_plots(const nlohmann::json& report);

}  // namespace pev::reports
