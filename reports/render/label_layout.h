// Where the labels of a scatter plot's points go, decided before gnuplot draws them (gnuplot's
// own `with labels` puts each label at a fixed offset, so neighbours overlap): every label beside
// its point, moved up or down a line or to the other side when that place is taken, and as a
// short number (named in a legend beside the plot) when its name fits nowhere near. No two labels
// overlap, none covers a point, and none leaves the plot area.
#pragma once

#include <string>
#include <vector>

namespace pev::reports::render {

// A rectangle in pixels of the plot area: x to the right, y up, (0, 0) its lower left corner.
struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool intersects(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(double width, double height) const {
    return x0 >= 0 && y0 >= 0 && x1 <= width && y1 <= height;
  }
};

struct LabelFont {
  double size_px = 7;  // gnuplot's ',7': its SVG terminal writes font-size="7.00", in pixels
  // A generous average advance of a character of DejaVu Sans (digits 0.64 em, lower case about
  // 0.6, '/' 0.34), so that the estimated box holds the drawn text.
  double char_em = 0.65;
  double line_em = 1.3;  // the height a label takes, in ems (the glyphs take about 1)
  double width(const std::string& text) const {
    return static_cast<double>(text.size()) * char_em * size_px;
  }
  double height() const { return line_em * size_px; }
};

struct Label {
  double point_x = 0, point_y = 0;  // the point it names, in plot-area pixels
  std::string text;                 // what is drawn: the name, its number, or nothing
  int number = 0;                   // > 0: the name did not fit, the legend names this number
  bool left = false;                // drawn to the left of its point (right-aligned)
  double x = 0, y = 0;              // the text's anchor: its left (or right) end, vertical centre
  Box box;                          // the estimated box of the drawn text
};

// One label per point (points[i] named names[i], in plot-area pixels), placed in a plot area of
// width x height pixels. Deterministic: the same points give the same layout. A label that fits
// nowhere even as a number is not drawn (its text is empty) but keeps its number in the legend.
std::vector<Label> place_labels(const std::vector<std::pair<double, double>>& points,
                                const std::vector<std::string>& names, double width, double height,
                                const LabelFont& font = {});

}  // namespace pev::reports::render
