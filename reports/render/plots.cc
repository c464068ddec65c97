#include "peverify/reports/render/plots.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "peverify/encoding/format.h"
#include "peverify/reports/render/label_layout.h"
#include "peverify/reports/render/report_text.h"
#include "peverify/support/temporary_files.h"

namespace pev::reports::render {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Errors of exactly zero (position 0, exact entries) cannot sit on a log axis.
constexpr double kFloor = 1e-12;

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

bool drawable(const json& e) {
  return e["available"].get<bool>() && e["accuracy"]["elements"].get<uint64_t>() > 0;
}

// One plot under construction: its gnuplot commands and its data as CSV.
struct Draft {
  std::string title;
  std::ostringstream gp;
  std::ostringstream csv;
};

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

// Writes an entry's error curve as gnuplot data (and into the plot's CSV once).
std::string curve_file(const fs::path& dir, const json& e, std::map<std::string, fs::path>& files,
                       std::ostringstream* csv) {
  const std::string name = e["name"].get<std::string>();
  if (const auto it = files.find(name); it != files.end()) return it->second.string();
  // Unique across plots: gnuplot reads every file only once the whole script runs.
  const fs::path path = dir / ("curve-" + e["output"].get<std::string>() + "-" +
                               std::to_string(files.size()) + ".dat");
  std::ofstream out(path);
  for (const json& p : e["error_curve"]) {
    const double pos = std::max(1.0, p[0].get<double>());
    const double err = p[1].is_null() ? 1.0 : std::max(kFloor, p[1].get<double>());
    out << pos << " " << err << "\n";
    if (csv)
      *csv << csv_field(name) << "," << p[0].get<uint64_t>() << ","
           << (p[1].is_null() ? std::string("inf") : fmt::format("{:.6g}", p[1].get<double>()))
           << "\n";
  }
  files.emplace(name, path);
  return path.string();
}

// Error versus position for one output type: a panel per strategy, its entries in colour over
// every other entry of the type in grey.
void error_panels(const json& r, const std::string& dtype, const fs::path& dir, Draft& d) {
  std::vector<const json*> all;
  std::vector<std::string> strategies;
  for (const json& e : r["implementations"])
    if (e["output"] == dtype && drawable(e) && !e["error_curve"].empty()) {
      all.push_back(&e);
      const std::string s = e["strategy"].get<std::string>();
      if (std::find(strategies.begin(), strategies.end(), s) == strategies.end())
        strategies.push_back(s);
    }
  if (all.empty()) return;
  const json& study = r["study"];
  d.title = fmt::format(
      "Max abs error versus position, {} outputs (d {}, base {:g}): one panel per strategy", dtype,
      study["d_models"][0].get<int>(), study["bases"][0].get<double>());
  d.csv << "implementation,position,max_abs_error\n";
  std::map<std::string, fs::path> files;
  const int columns = strategies.size() > 4 ? 3 : 2;
  const int rows = static_cast<int>((strategies.size() + columns - 1) / columns);
  d.gp << "set terminal svg size 1300," << 300 * rows + 60
       << " dynamic noenhanced font 'sans,11' background rgb 'white'\n"
       << "set multiplot layout " << rows << "," << columns << " title " << quoted(d.title)
       << "\nset logscale xy\nset grid\nset format y '%.0e'\nset key top left font ',8'\n"
       << "set xrange [1:" << std::max<double>(2, study["max_position"].get<double>()) << "]\n"
       << fmt::format("set yrange [{:.3g}:3]\n", output_rounding_error(*parse_dtype(dtype)) / 200)
       << "set xlabel 'position'\nset ylabel 'max abs error'\n"
       << "set label 1 'target 1e-4' at graph 0.99, first 1.6e-4 right font ',8' tc rgb '#777777'\n"
       << "set label 2 'target 1e-2' at graph 0.99, first 1.6e-2 right font ',8' tc rgb '#333333'\n"
       << "set label 3 'u*pos: the float32 angle' at first 2, first 3e-5 left font ',8' tc rgb "
          "'#c05000'\n"
       << fmt::format(
              "set label 4 'output rounding (half an ulp)' at graph 0.99, first {:.6g} "
              "right font ',8' tc rgb '#0060c0'\n",
              1.6 * output_rounding_error(*parse_dtype(dtype)));
  const double rounding = output_rounding_error(*parse_dtype(dtype));
  for (const std::string& strategy : strategies) {
    d.gp << "set title " << quoted(strategy) << "\nplot ";
    bool first = true;
    for (const json* e : all)
      if ((*e)["strategy"] != strategy) {
        d.gp << (first ? "" : ", \\\n  ") << quoted(curve_file(dir, *e, files, &d.csv))
             << " using 1:2 with lines lc rgb '#dddddd' notitle";
        first = false;
      }
    for (const json* e : all)
      if ((*e)["strategy"] == strategy) {
        d.gp << (first ? "" : ", \\\n  ") << quoted(curve_file(dir, *e, files, &d.csv))
             << " using 1:2 with linespoints lw 2 pt 7 ps 0.4 title "
             << quoted(short_entry_name((*e)["name"].get<std::string>()));
        first = false;
      }
    // The reference lines are labelled where they are drawn, so the key lists entries only.
    d.gp << ", \\\n  1e-4 with lines dt 2 lc rgb '#777777' notitle, \\\n  1e-2 with lines dt 2 lc "
            "rgb '#333333' notitle, \\\n  2**-24*x with lines dt 3 lw 2 lc rgb '#c05000' notitle, "
            "\\\n  "
         << fmt::format("{:.6g}", rounding) << " with lines dt 4 lc rgb '#0060c0' notitle\n";
  }
  d.gp << "unset multiplot\nunset logscale\nunset format\nunset xrange\nunset yrange\n";
}

// The accuracy/throughput plot's frame: the page and where the plot area sits on it (fixed, so
// that a point's place on the page, hence its label's room, is known before gnuplot draws).
struct Frame {
  double page_width = 1300, page_height = 640;
  double left = 0.075, right = 0.98, bottom = 0.17, top = 0.92;  // screen fractions
  double width() const { return (right - left) * page_width; }
  double height() const { return (top - bottom) * page_height; }
};

// A decade-aligned log range holding every value (with room for a marker at the ends).
std::pair<double, double> log_range(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {std::pow(10, std::floor(std::log10(*lo / 1.2))),
          std::pow(10, std::ceil(std::log10(*hi * 1.2)))};
}

double log_fraction(double v, std::pair<double, double> range) {
  return std::log(v / range.first) / std::log(range.second / range.first);
}

// The points' labels (reports/label_layout.h) and the plot's frame they were placed in: where
// some fit only as numbers, the plot narrows for a legend of them on its right, in as many
// columns as they need, and they are placed again.
struct PointLabels {
  Frame frame;
  std::pair<double, double> x_range, y_range;
  std::vector<Label> labels;
  LabelFont font;
  size_t per_column = 1;     // legend lines in a column
  double legend_column = 0;  // a legend column's width in pixels
};

PointLabels label_points(const std::vector<Point>& points) {
  PointLabels out;
  std::vector<double> xs, ys;
  std::vector<std::string> names;
  size_t longest = 0;
  for (const Point& p : points) {
    xs.push_back(p.x);
    ys.push_back(p.y);
    names.push_back(p.label);
    longest = std::max(longest, p.label.size());
  }
  out.x_range = log_range(xs);
  out.y_range = log_range(ys);
  out.legend_column = out.font.width("99 " + std::string(longest, 'x')) + 8;
  out.per_column = std::max<size_t>(1, static_cast<size_t>(out.frame.height() / out.font.height()));
  const double full_right = out.frame.right;
  for (size_t columns = 0;;) {
    out.frame.right =
        full_right - static_cast<double>(columns) * out.legend_column / out.frame.page_width;
    std::vector<std::pair<double, double>> at;
    for (const Point& p : points)
      at.emplace_back(log_fraction(p.x, out.x_range) * out.frame.width(),
                      log_fraction(p.y, out.y_range) * out.frame.height());
    out.labels = place_labels(at, names, out.frame.width(), out.frame.height(), out.font);
    const auto numbered = std::count_if(out.labels.begin(), out.labels.end(),
                                        [](const Label& l) { return l.number > 0; });
    const size_t needed = (static_cast<size_t>(numbered) + out.per_column - 1) / out.per_column;
    if (needed <= columns) return out;
    columns = needed;
  }
}

// gnuplot commands drawing the labels where place_labels put them, a leader line to each moved
// off its point's height, and the legend of the numbered ones.
void label_commands(const PointLabels& placed, const std::vector<Point>& points, std::ostream& gp) {
  const Frame& frame = placed.frame;
  std::map<int, std::string> legend;  // by number
  for (size_t i = 0; i < placed.labels.size(); ++i) {
    const Label& l = placed.labels[i];
    if (l.number > 0) legend[l.number] = fmt::format("{} {}", l.number, points[i].label);
    if (l.text.empty()) continue;
    gp << fmt::format("set label {} at graph {:.5f}, graph {:.5f} {} font ',7' front\n",
                      quoted(l.text), l.x / frame.width(), l.y / frame.height(),
                      l.left ? "right" : "left");
    if (l.y != l.point_y)
      gp << fmt::format(
          "set arrow from first {:.6g}, first {:.6g} to graph {:.5f}, graph {:.5f} nohead lw 0.5 "
          "lc rgb '#999999' back\n",
          points[i].x, points[i].y, (l.left ? l.box.x1 : l.box.x0) / frame.width(),
          l.y / frame.height());
  }
  size_t k = 0;
  for (const auto& numbered : legend) {
    const std::string& entry = numbered.second;
    const double column = static_cast<double>(k / placed.per_column);
    const double line = static_cast<double>(k++ % placed.per_column) + 0.5;
    gp << fmt::format("set label {} at screen {:.5f}, screen {:.5f} left font ',7'\n",
                      quoted(entry),
                      frame.right + (8 + column * placed.legend_column) / frame.page_width,
                      frame.top - line * placed.font.height() / frame.page_height);
  }
}

void pareto_plot(const json& r, const fs::path& dir, Draft& d) {
  std::vector<Point> points;
  for (const json& e : r["implementations"])
    if (drawable(e) && !e["values_per_s"].is_null() && !e["accuracy"]["max_abs"].is_null())
      points.push_back({e["values_per_s"].get<double>(),
                        std::max(kFloor, e["accuracy"]["max_abs"].get<double>()),
                        short_entry_name(e["name"].get<std::string>())});
  if (points.empty()) return;
  const std::vector<Point> front = pareto_front(points);
  const fs::path all = dir / "points.dat", front_file = dir / "front.dat";
  {
    std::ofstream out(all), f(front_file);
    d.csv << "implementation,values_per_s,max_abs_error,on_pareto_front\n";
    for (const Point& p : points) {
      const bool on = std::any_of(front.begin(), front.end(),
                                  [&](const Point& q) { return q.label == p.label; });
      out << p.x << " " << p.y << "\n";
      d.csv << csv_field(p.label) << "," << p.x << "," << p.y << "," << (on ? "yes" : "no") << "\n";
    }
    for (const Point& p : front) f << p.x << " " << p.y << "\n";
  }
  const PointLabels placed = label_points(points);
  const Frame& frame = placed.frame;
  d.title = "Accuracy versus throughput (one thread, 8192 x 512 table), with the Pareto front";
  d.gp << fmt::format(
              "set terminal svg size {},{} dynamic noenhanced font 'sans,11' background rgb "
              "'white'\n",
              frame.page_width, frame.page_height)
       << "set title " << quoted(d.title)
       << fmt::format(
              "\nset lmargin at screen {}\nset rmargin at screen {:.4f}\n"
              "set bmargin at screen {}\nset tmargin at screen {}\n",
              frame.left, frame.right, frame.bottom, frame.top)
       << "set logscale xy\nset grid\nset xlabel 'values per second (one thread)'\nset ylabel "
          "'max abs error over the study'\nset format y '%.0e'\n"
       << fmt::format("set xrange [{:.6g}:{:.6g}]\nset yrange [{:.6g}:{:.6g}]\n",
                      placed.x_range.first, placed.x_range.second, placed.y_range.first,
                      placed.y_range.second)
       // Below the plot, so that the plot area is the labels' alone.
       << fmt::format("set key horizontal left bottom at screen {}, screen 0.005\n", frame.left);
  label_commands(placed, points, d.gp);
  d.gp << "plot " << quoted(all.string())
       << " using 1:2 with points pt 7 ps 0.8 title 'implementations', \\\n  "
       << quoted(front_file.string()) << " using 1:2 with lines lw 2 title 'Pareto front'\n"
       << "unset logscale\nunset format\nunset label\nunset arrow\n";
}

void horizon_plot(const json& r, const fs::path& dir, Draft& d) {
  const fs::path data = dir / "horizons.dat";
  std::ofstream out(data);
  d.csv << "implementation,horizon_1e-4,horizon_1e-2\n";
  int n = 0;
  for (const json& e : r["implementations"]) {
    if (!drawable(e)) continue;
    const uint64_t h4 = e["horizons"].value("1e-4", uint64_t{0});
    const uint64_t h2 = e["horizons"].value("1e-2", uint64_t{0});
    out << n++ << " " << std::max<uint64_t>(1, h4) << " " << std::max<uint64_t>(1, h2) << " "
        << quoted(short_entry_name(e["name"].get<std::string>())) << "\n";
    d.csv << csv_field(e["name"].get<std::string>()) << "," << h4 << "," << h2 << "\n";
  }
  if (!n) return;
  d.title =
      "Horizons: the largest position studied with every measured row within 1e-4 (and "
      "1e-2); 1 means never beyond position 0";
  d.gp << "set terminal svg size 1300,760 dynamic noenhanced font 'sans,11' background rgb "
          "'white'\nset title "
       << quoted(d.title)
       << "\nset logscale y\nset grid ytics\nset key top left\nset ylabel 'position'\nset xtics "
          "rotate by 60 right font ',8'\nset style data histograms\nset style histogram "
          "clustered gap 1\nset style fill solid 0.7\nplot "
       << quoted(data.string()) << " using 2:xtic(4) title 'within 1e-4', '' using 3 title "
       << "'within 1e-2'\nunset logscale\nunset xtics\nset xtics\n";
}

// std::system ignores SIGINT in the caller while the command runs: a Ctrl-C during gnuplot would
// be lost, and the report go on. Spawned and awaited here, the signal reaches peverify's handler.
int run_shell(const std::string& command) {
  const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
  pid_t pid;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0)
    return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return status;
}

}  // namespace

std::vector<Plot> draw_plots(const json& report) {
  char tmpl[] = "/tmp/peverify-plots-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("cannot create a directory for the plots");
  const fs::path dir(tmpl);
  register_scratch_directory(dir);  // an interrupt removes it too
  std::vector<Draft> drafts(5);
  error_panels(report, "float32", dir, drafts[0]);
  error_panels(report, "float16", dir, drafts[1]);
  error_panels(report, "bfloat16", dir, drafts[2]);
  pareto_plot(report, dir, drafts[3]);
  horizon_plot(report, dir, drafts[4]);

  std::ostringstream gp;
  std::vector<Plot> plots;
  for (Draft& d : drafts) {
    if (d.title.empty()) continue;
    Plot p;
    p.title = d.title;
    p.file = "plot-" + std::to_string(plots.size() + 1) + ".svg";
    p.data_file = "plot-" + std::to_string(plots.size() + 1) + ".csv";
    p.data_csv = d.csv.str();
    gp << "set output " << quoted((dir / p.file).string()) << "\n" << d.gp.str() << "reset\n";
    plots.push_back(std::move(p));
  }
  const fs::path script = dir / "plots.gp";
  std::ofstream(script) << gp.str();
  const std::string command =
      "gnuplot " + quoted(script.string()) + " 2>" + quoted((dir / "gnuplot.log").string());
  const int status = run_shell(command);
  // gnuplot alone was interrupted: end as if peverify had been (its handler cleans up).
  if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM))
    std::raise(WTERMSIG(status));
  if (status == 0)
    for (Plot& p : plots) {
      std::ifstream in(dir / p.file);
      std::stringstream svg;
      svg << in.rdbuf();
      p.svg = svg.str();
    }
  std::error_code ec;
  if (!std::getenv("PEV_KEEP_PLOT_FILES")) fs::remove_all(dir, ec);
  unregister_scratch_directory(dir);
  if (status != 0)
    throw std::runtime_error("gnuplot failed or is not installed (exit status " +
                             std::to_string(WEXITSTATUS(status)) + ")");
  return plots;
}

}  // namespace pev::reports::render
