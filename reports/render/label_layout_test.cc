#include "peverify/reports/render/label_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pev::reports::render {
namespace {

using Points = std::vector<std::pair<double, double>>;

constexpr double kWidth = 1100, kHeight = 480;

// Every promise of place_labels: no two drawn labels overlap, none covers a point's marker or
// leaves the plot area, and a label is its name or a number the legend names.
void expect_clear(const Points& points, const std::vector<std::string>& names,
                  const std::vector<Label>& labels) {
  ASSERT_EQ(labels.size(), points.size());
  std::vector<int> numbers;
  for (size_t i = 0; i < labels.size(); ++i) {
    const Label& l = labels[i];
    EXPECT_EQ(l.point_x, points[i].first);
    EXPECT_EQ(l.point_y, points[i].second);
    if (l.number > 0) {
      numbers.push_back(l.number);
      EXPECT_TRUE(l.text.empty() || l.text == std::to_string(l.number)) << l.text;
    } else {
      EXPECT_EQ(l.text, names[i]);
    }
    if (l.text.empty()) continue;
    EXPECT_TRUE(l.box.inside(kWidth, kHeight)) << l.text << " leaves the plot";
    // At least 0.6 em a character: what DejaVu Sans's lower case and digits take.
    EXPECT_GE(l.box.x1 - l.box.x0, static_cast<double>(l.text.size()) * 0.6 * LabelFont{}.size_px)
        << l.text;
    for (size_t j = 0; j < labels.size(); ++j) {
      const Box marker = {points[j].first - 3, points[j].second - 3, points[j].first + 3,
                          points[j].second + 3};
      EXPECT_FALSE(l.box.intersects(marker)) << l.text << " covers point " << j;
      if (j > i && !labels[j].text.empty()) {
        EXPECT_FALSE(l.box.intersects(labels[j].box)) << l.text << " overlaps " << labels[j].text;
      }
    }
  }
  std::sort(numbers.begin(), numbers.end());
  for (size_t k = 0; k < numbers.size(); ++k) EXPECT_EQ(numbers[k], static_cast<int>(k) + 1);
}

std::string name_of_length(size_t i) {
  return "cpu/entry" + std::to_string(i) + std::string(8 + i % 17, 'x');
}

// A dense set: a tight cluster of many points (the precise and SLEEF entries at the same error),
// a row at one error (half an ulp) and points scattered over the plot, some at its edges.
TEST(PlotLabelLayout, ADenseSetHasNoOverlapsAndStaysInThePlot) {
  Points points;
  uint64_t x = 0x9E3779B97F4A7C15u;
  const auto next = [&x] {
    x = x * 6364136223846793005u + 1442695040888963407u;
    return static_cast<double>(x >> 11) * 0x1p-53;
  };
  for (int i = 0; i < 25; ++i) points.emplace_back(700 + 40 * next(), 200 + 30 * next());
  for (int i = 0; i < 12; ++i) points.emplace_back(300 + 60 * i, 100);
  for (int i = 0; i < 25; ++i) points.emplace_back(kWidth * next(), kHeight * next());
  points.emplace_back(kWidth, kHeight);
  points.emplace_back(0, 0);
  std::vector<std::string> names;
  for (size_t i = 0; i < points.size(); ++i) names.push_back(name_of_length(i));
  const std::vector<Label> labels = place_labels(points, names, kWidth, kHeight);
  expect_clear(points, names, labels);
  const auto named =
      std::count_if(labels.begin(), labels.end(), [](const Label& l) { return l.number == 0; });
  EXPECT_GT(named, 30) << "most labels should fit as names";
  EXPECT_TRUE(std::any_of(labels.begin(), labels.end(), [](const Label& l) { return l.number; }))
      << "the cluster cannot hold 25 names: some must be numbered";
}

TEST(PlotLabelLayout, SparsePointsAreLabelledBesideThemOnTheRight) {
  const Points points = {{100, 100}, {400, 300}, {700, 50}};
  const std::vector<std::string> names = {"a/b", "precise/f64>f32/hwy", "pow/f32>f32/glibc"};
  const std::vector<Label> labels = place_labels(points, names, kWidth, kHeight);
  expect_clear(points, names, labels);
  ASSERT_EQ(labels.size(), 3u);
  for (const Label& l : labels) {
    // Drawn by name: expect_clear checked each one's box.
    EXPECT_EQ(l.number, 0) << l.text;
    EXPECT_FALSE(l.text.empty());
    EXPECT_FALSE(l.left);
    EXPECT_EQ(l.y, l.point_y);
    EXPECT_GT(l.x, l.point_x);
  }
}

TEST(PlotLabelLayout, APointAtTheRightEdgeIsLabelledOnItsLeft) {
  const std::vector<Label> labels = place_labels({{kWidth - 2, 200}}, {"fastest"}, kWidth, kHeight);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_TRUE(labels[0].left);
  EXPECT_LE(labels[0].box.x1, kWidth - 2);
}

TEST(PlotLabelLayout, TheLayoutDoesNotDependOnTheOrderOfThePoints) {
  Points points;
  std::vector<std::string> names;
  for (int i = 0; i < 30; ++i) {
    points.emplace_back(500 + 7 * (i % 5), 200 + 3 * i);
    names.push_back(name_of_length(i));
  }
  const std::vector<Label> forward = place_labels(points, names, kWidth, kHeight);
  std::reverse(points.begin(), points.end());
  std::reverse(names.begin(), names.end());
  std::vector<Label> backward = place_labels(points, names, kWidth, kHeight);
  std::reverse(backward.begin(), backward.end());
  ASSERT_EQ(forward.size(), 30u);
  ASSERT_EQ(backward.size(), 30u);
  for (size_t i = 0; i < forward.size(); ++i) {
    EXPECT_EQ(forward[i].text, backward[i].text) << i;
    EXPECT_EQ(forward[i].x, backward[i].x) << i;
    EXPECT_EQ(forward[i].y, backward[i].y) << i;
  }
}

}  // namespace
}  // namespace pev::reports::render
