#include "reports/plots.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pev::reports {
namespace {

// Errors of exactly zero (position 0, exact entries) cannot sit on a log axis.
constexpr double kFloor = 1e-12;

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

struct Point {
  double x, y;
  std::string label;
};

std::vector<Point> pareto_front(std::vector<Point> points) {
  // Faster (larger x) and more accurate (smaller y) dominates.
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.x > b.x; });
  std::vector<Point> front;
  double best_y = INFINITY;
  for (const Point& p : points)
    if (p.y < best_y) {
      front.push_back(p);
      best_y = p.y;
    }
  return front;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> draw_plots(const nlohmann::json& report) {
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/peverify-plots-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("cannot create a directory for the plots");
  const fs::path dir(tmpl);
  std::ostringstream gp;
  gp << "set terminal svg size 1100,620 dynamic noenhanced font 'sans,11' background rgb "
        "'white'\nset grid\nset key outside right top font ',9'\n";
  std::vector<std::string> titles;

  // 1. Error versus position, one plot per output type.
  for (const std::string dtype : {"float32", "float16", "bfloat16"}) {
    std::vector<std::string> series;
    int index = 0;
    for (const auto& e : report["implementations"]) {
      if (e["output"] != dtype || !e["available"].get<bool>() || e["error_curve"].empty()) continue;
      const fs::path data = dir / ("curve-" + dtype + "-" + std::to_string(index++) + ".dat");
      std::ofstream out(data);
      for (const auto& p : e["error_curve"]) {
        const double pos = std::max(1.0, p[0].get<double>());
        const double err = p[1].is_null() ? 1.0 : std::max(kFloor, p[1].get<double>());
        out << pos << " " << err << "\n";
      }
      series.push_back(quoted(data.string()) + " using 1:2 with linespoints pt 7 ps 0.4 title " +
                       quoted(e["name"].get<std::string>()));
    }
    if (series.empty()) continue;
    const std::string title =
        "Max abs error versus position, " + dtype + " outputs (d 512, base 1e4)";
    titles.push_back(title);
    gp << "set output "
       << quoted((dir / ("plot-" + std::to_string(titles.size()) + ".svg")).string())
       << "\nset title " << quoted(title)
       << "\nset logscale xy\nset xlabel 'position'\nset ylabel 'max abs error'\nset format y "
          "'%.0e'\nplot ";
    for (size_t i = 0; i < series.size(); ++i) gp << (i ? ", \\\n  " : "") << series[i];
    gp << "\nunset logscale\nunset format\n";
  }

  // 2. Accuracy versus throughput, with the Pareto front.
  std::vector<Point> points;
  for (const auto& e : report["implementations"])
    if (e["available"].get<bool>() && !e["values_per_s"].is_null() &&
        !e["accuracy"]["max_abs"].is_null())
      points.push_back({e["values_per_s"].get<double>(),
                        std::max(kFloor, e["accuracy"]["max_abs"].get<double>()),
                        e["name"].get<std::string>()});
  if (!points.empty()) {
    const fs::path all = dir / "points.dat", front = dir / "front.dat";
    {
      std::ofstream out(all);
      for (const Point& p : points) out << p.x << " " << p.y << " " << quoted(p.label) << "\n";
      std::ofstream f(front);
      for (const Point& p : pareto_front(points)) f << p.x << " " << p.y << "\n";
    }
    const std::string title = "Accuracy versus throughput (one thread, 8192 x 512), Pareto front";
    titles.push_back(title);
    gp << "set output "
       << quoted((dir / ("plot-" + std::to_string(titles.size()) + ".svg")).string())
       << "\nset title " << quoted(title)
       << "\nset logscale xy\nset xlabel 'values per second'\nset ylabel 'max abs error over the "
          "study'\nset format y '%.0e'\nplot "
       << quoted(all.string())
       << " using 1:2 with points pt 7 ps 0.8 title 'implementations', \\\n  "
       << quoted(all.string())
       << " using 1:2:3 with labels font ',7' offset 0.5,0.5 left notitle, \\\n  "
       << quoted(front.string()) << " using 1:2 with lines lw 2 title 'Pareto front'\n"
       << "unset logscale\nunset format\n";
  }

  // 3. Horizons for the 1e-4 absolute target.
  {
    const fs::path data = dir / "horizons.dat";
    std::ofstream out(data);
    int n = 0;
    for (const auto& e : report["implementations"])
      if (e["available"].get<bool>())
        out << n++ << " " << std::max<uint64_t>(1, e["horizons"].value("1e-4", uint64_t{0})) << " "
            << quoted(e["name"].get<std::string>()) << "\n";
    out.close();
    if (n) {
      const std::string title = "Horizon: the largest position with every sampled error <= 1e-4";
      titles.push_back(title);
      gp << "set output "
         << quoted((dir / ("plot-" + std::to_string(titles.size()) + ".svg")).string())
         << "\nset title " << quoted(title)
         << "\nset terminal svg size 1100,760 dynamic noenhanced font 'sans,11' background rgb "
            "'white'\nset logscale y\nset ylabel 'position'\nset xtics rotate by 60 right font "
            "',8'\nset style fill solid 0.6\nset boxwidth 0.7\nplot "
         << quoted(data.string()) << " using 1:2:xtic(3) with boxes notitle\n";
    }
  }
  const fs::path script = dir / "plots.gp";
  {
    std::ofstream out(script);
    out << gp.str();
  }
  const std::string command =
      "gnuplot " + quoted(script.string()) + " 2>" + quoted((dir / "gnuplot.log").string());
  const int status = std::system(command.c_str());
  std::vector<std::pair<std::string, std::string>> plots;
  if (status == 0) {
    for (size_t i = 0; i < titles.size(); ++i) {
      std::ifstream in(dir / ("plot-" + std::to_string(i + 1) + ".svg"));
      std::stringstream svg;
      svg << in.rdbuf();
      plots.push_back({titles[i], svg.str()});
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (status != 0)
    throw std::runtime_error("gnuplot failed or is not installed (exit status " +
                             std::to_string(WEXITSTATUS(status)) + ")");
  return plots;
}

}  // namespace pev::reports
