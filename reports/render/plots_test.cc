// The accuracy/throughput plot as gnuplot draws it: its point labels, read back from the SVG,
// neither overlap nor leave the plot area, and every point is named beside it or in the legend.
#include "peverify/reports/render/plots.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "peverify/reports/render/label_layout.h"

namespace pev::reports::render {
namespace {

// A report as dense as the default one: entries of every strategy, compute and output type and
// backend, half of them at the same errors (half an ulp of their output), all within a decade of
// speed. `names` gets each point's label as drawn (without "cpu/").
nlohmann::json dense_report(std::set<std::string>& names) {
  nlohmann::json entries = nlohmann::json::array();
  uint64_t x = 0x9E3779B97F4A7C15u;
  const auto next = [&x] {
    x = x * 6364136223846793005u + 1442695040888963407u;
    return static_cast<double>(x >> 11) * 0x1p-53;
  };
  const double half_ulp[] = {2.98e-8, 2.44e-4, 1.95e-3};
  for (const std::string strategy : {"pow", "logspace", "recurrence", "anchored", "precise"})
    for (const std::string types : {"f64>f32", "f32>f32", "f32>f16", "f32>bf16", "bf16>bf16"})
      for (const std::string backend : {"glibc", "sleef-u10", "sleef-u35", "hwy"}) {
        if (types == "bf16>bf16" && backend != "glibc") continue;
        const std::string name = strategy + "/" + types + "/" + backend;
        names.insert(name);
        const double error =
            next() < 0.5 ? half_ulp[entries.size() % 3] : 1e-8 * (1 + 1e7 * next());
        entries.push_back({{"name", "cpu/" + name},
                           {"available", true},
                           {"output", "float32"},
                           {"strategy", strategy},
                           {"accuracy", {{"elements", 1000}, {"max_abs", error}}},
                           {"values_per_s", 3e8 * (1 + 9 * next())},
                           {"error_curve", nlohmann::json::array()},
                           {"horizons", {{"1e-4", 1000}, {"1e-2", 100000}}}});
      }
  return {{"implementations", entries},
          {"study", {{"d_models", {512}}, {"bases", {10000}}, {"max_position", 16777215}}}};
}

struct DrawnText {
  double x, y;
  bool end_anchored;
  std::string text;
};

// gnuplot's SVG: each label is <g transform="translate(X,Y)" ... font-size="7.00"
// text-anchor="start|end"> <text>TEXT</text>, its baseline a third of the font size below Y.
std::vector<DrawnText> small_texts(const std::string& svg) {
  static const std::regex text(
      R"re(<g transform="translate\(([-0-9.]+),([-0-9.]+)\)"[^>]*font-size="7.00"\s*)re"
      R"re(text-anchor="(start|end)">\s*<text>([^<]*)</text>)re");
  std::vector<DrawnText> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator();
       ++it)
    out.push_back({std::stod((*it)[1]), std::stod((*it)[2]), (*it)[3] == "end", (*it)[4]});
  return out;
}

TEST(PlotLabels, TheAccuracyThroughputPlotsLabelsNeitherOverlapNorLeaveThePlot) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "gnuplot is not installed (Debian's gnuplot-nox)";
  std::set<std::string> names;
  const std::vector<Plot> plots = draw_plots(dense_report(names));
  const auto plot = std::find_if(plots.begin(), plots.end(), [](const Plot& p) {
    return p.title.starts_with("Accuracy versus throughput");
  });
  ASSERT_NE(plot, plots.end());
  // The plot area: gnuplot's border, M x0,y0 L x0,y1 L x1,y1 ...
  std::smatch border;
  ASSERT_TRUE(std::regex_search(
      plot->svg, border,
      std::regex(R"re(d='M([0-9.]+),([0-9.]+) L[0-9.]+,([0-9.]+) L([0-9.]+),[0-9.]+ L)re")));
  const double left = std::stod(border[1]), top = std::stod(border[2]);
  const double bottom = std::stod(border[3]), right = std::stod(border[4]);

  const LabelFont font;
  std::vector<Box> boxes;
  std::set<std::string> named;
  size_t numbers = 0;
  for (const DrawnText& t : small_texts(plot->svg)) {
    const bool number = std::all_of(t.text.begin(), t.text.end(), ::isdigit);
    if (!number && !names.count(t.text)) {  // the legend of numbered labels, right of the plot
      EXPECT_GT(t.x, right) << t.text;
      EXPECT_TRUE(names.count(t.text.substr(t.text.find(' ') + 1))) << t.text;
      named.insert(t.text.substr(t.text.find(' ') + 1));
      continue;
    }
    numbers += number;
    if (!number) named.insert(t.text);
    // The box place_labels reserved, less the rounding of the coordinates gnuplot is given and
    // writes (labels a line apart touch).
    const double w = font.width(t.text), baseline = t.y, centre = baseline - font.size_px / 3;
    const double e = 0.05;
    const Box b = {(t.end_anchored ? t.x - w : t.x) + e, centre - font.height() / 2 + e,
                   (t.end_anchored ? t.x : t.x + w) - e, centre + font.height() / 2 - e};
    EXPECT_TRUE(b.x0 >= left && b.x1 <= right && b.y0 >= top && b.y1 <= bottom)
        << t.text << " leaves the plot area";
    for (const Box& o : boxes) EXPECT_FALSE(b.intersects(o)) << t.text << " overlaps a label";
    boxes.push_back(b);
  }
  EXPECT_EQ(named, names) << "every point is named, beside it or in the legend";
  EXPECT_GT(boxes.size(), names.size() / 2);
  EXPECT_GT(numbers, 0u) << "a set this dense must number some labels";
}

}  // namespace
}  // namespace pev::reports::render
