#include "peverify/reports/render/label_layout.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace pev::reports::render {
namespace {

// Half the side of a point's marker (gnuplot's pt 7 ps 0.8), and the space between a point and
// its label.
constexpr double kMarker = 4;
constexpr double kGap = kMarker + 2;

struct Candidate {
  bool left;
  int lines;  // up (positive) or down from the point, in label heights
};

// Nearest places first: beside the point, then a line up or down, ..., then `reach` lines away;
// at each height the right side first (where a reader looks for a point's name).
std::vector<Candidate> candidates(int reach) {
  std::vector<Candidate> out;
  for (int k = 0; k <= reach; ++k)
    for (const int lines : k == 0 ? std::vector<int>{0} : std::vector<int>{k, -k})
      for (const bool left : {false, true}) out.push_back({left, lines});
  return out;
}

Label at(const std::pair<double, double>& p, const std::string& text, const Candidate& c,
         const LabelFont& font) {
  Label l;
  l.point_x = p.first;
  l.point_y = p.second;
  l.text = text;
  l.left = c.left;
  l.x = c.left ? p.first - kGap : p.first + kGap;
  l.y = p.second + c.lines * font.height();
  const double w = font.width(text), h = font.height();
  l.box = {c.left ? l.x - w : l.x, l.y - h / 2, c.left ? l.x : l.x + w, l.y + h / 2};
  return l;
}

}  // namespace

std::vector<Label> place_labels(const std::vector<std::pair<double, double>>& points,
                                const std::vector<std::string>& names, double width, double height,
                                const LabelFont& font) {
  std::vector<Box> taken;  // the markers, then each label placed
  for (const auto& [x, y] : points)
    taken.push_back({x - kMarker, y - kMarker, x + kMarker, y + kMarker});
  // Top to bottom, left to right: the same points give the same layout whatever their order.
  std::vector<size_t> order(points.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (points[a].second != points[b].second) return points[a].second > points[b].second;
    return points[a].first < points[b].first;
  });
  const auto fits = [&](const Label& l) {
    return l.box.inside(width, height) &&
           std::none_of(taken.begin(), taken.end(),
                        [&](const Box& b) { return b.intersects(l.box); });
  };
  // First every name near its point; then, for those with no room, their number further out.
  std::vector<Label> out(points.size());
  std::vector<size_t> unplaced;
  for (const size_t i : order) {
    bool placed = false;
    for (const Candidate& c : candidates(3)) {
      const Label l = at(points[i], names[i], c, font);
      if (fits(l)) {
        out[i] = l;
        taken.push_back(l.box);
        placed = true;
        break;
      }
    }
    if (!placed) unplaced.push_back(i);
  }
  int number = 0;
  for (const size_t i : unplaced) {
    ++number;
    out[i] = at(points[i], "", {false, 0}, font);  // not drawn, unless a place is found below
    out[i].box = {};
    for (const Candidate& c : candidates(8)) {
      const Label l = at(points[i], std::to_string(number), c, font);
      if (fits(l)) {
        out[i] = l;
        taken.push_back(l.box);
        break;
      }
    }
    out[i].number = number;
  }
  return out;
}

}  // namespace pev::reports::render
