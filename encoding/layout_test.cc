#include "peverify/encoding/layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace pev {
namespace {

// docs/mathematics.md §1.2 at d = 8, written out column by column ("s2": sin of pair 2). The table
// in layout.h must agree with it in both directions; nothing else checks a row of the table.
struct Documented {
  const char* name;
  const char* row;
};
constexpr Documented kDocumented[] = {
    {"interleaved", "s0 c0 s1 c1 s2 c2 s3 c3"},
    {"halves", "s0 s1 s2 s3 c0 c1 c2 c3"},
    {"rope-cos", "c0 c1 c2 c3"},
    {"rope-sin", "s0 s1 s2 s3"},
    {"rope-cos-dup", "c0 c1 c2 c3 c0 c1 c2 c3"},
    {"rope-sin-dup", "s0 s1 s2 s3 s0 s1 s2 s3"},
    {"rope-cos-pairs", "c0 c0 c1 c1 c2 c2 c3 c3"},
    {"rope-sin-pairs", "s0 s0 s1 s1 s2 s2 s3 s3"},
    {"rope-cos-sin", "c0 c1 c2 c3 s0 s1 s2 s3"},
    {"polar", "c0 s0 c1 s1 c2 s2 c3 s3"},
};
constexpr int kD = 8, kHalf = kD / 2;

std::vector<Column> documented_row(const Documented& doc) {
  std::vector<Column> row;
  std::istringstream in(doc.row);
  for (std::string cell; in >> cell;) row.push_back({std::stoi(cell.substr(1)), cell[0] == 's'});
  return row;
}

// The columns where the documented row holds pair k's sin (or cos).
std::vector<int> documented_columns(const std::vector<Column>& row, int k, bool is_sin) {
  std::vector<int> at;
  for (int c = 0; c < static_cast<int>(row.size()); ++c)
    if (row[c].pair == k && row[c].is_sin == is_sin) at.push_back(c);
  return at;
}

std::vector<int> stored(const int (&columns)[2]) {
  std::vector<int> at;
  for (const int c : columns)
    if (c >= 0) at.push_back(c);
  std::sort(at.begin(), at.end());
  return at;
}

TEST(LayoutTable, EveryLayoutIsDocumentedAndListedOnce) {
  ASSERT_EQ(std::size(kAllLayouts), std::size(kDocumented));
  for (const Documented& doc : kDocumented) {
    const auto layout = parse_layout(doc.name);
    ASSERT_TRUE(layout) << doc.name;
    EXPECT_EQ(name_of(*layout), doc.name);
    EXPECT_EQ(std::count(std::begin(kAllLayouts), std::end(kAllLayouts), *layout), 1) << doc.name;
  }
  EXPECT_EQ(all_layouts(), std::vector<Layout>(std::begin(kAllLayouts), std::end(kAllLayouts)));
  EXPECT_FALSE(parse_layout("rope"));
}

TEST(LayoutTable, ColumnToPairAgreesWithTheDesign) {
  for (const Documented& doc : kDocumented) {
    const Layout layout = *parse_layout(doc.name);
    const std::vector<Column> row = documented_row(doc);
    ASSERT_EQ(layout_width(layout, kD), static_cast<int>(row.size())) << doc.name;
    for (int c = 0; c < static_cast<int>(row.size()); ++c) {
      const Column got = pair_of_column(layout, kHalf, c);
      EXPECT_EQ(got.pair, row[c].pair) << doc.name << " column " << c;
      EXPECT_EQ(got.is_sin, row[c].is_sin) << doc.name << " column " << c;
    }
    EXPECT_EQ(pair_of_column(layout, kHalf, static_cast<int>(row.size())).pair, -1) << doc.name;
  }
}

TEST(LayoutTable, PairToColumnsAgreesWithTheDesign) {
  for (const Documented& doc : kDocumented) {
    const Layout layout = *parse_layout(doc.name);
    const std::vector<Column> row = documented_row(doc);
    bool has_sin = false, has_cos = false;
    for (int k = 0; k < kHalf; ++k) {
      const ColumnsOfPair got = columns_of_pair(layout, kHalf, k);
      EXPECT_EQ(stored(got.sin), documented_columns(row, k, true)) << doc.name << " pair " << k;
      EXPECT_EQ(stored(got.cos), documented_columns(row, k, false)) << doc.name << " pair " << k;
      has_sin = has_sin || !documented_columns(row, k, true).empty();
      has_cos = has_cos || !documented_columns(row, k, false).empty();
    }
    EXPECT_EQ(holds_sin_and_cos(layout), has_sin && has_cos) << doc.name;
  }
}

TEST(LayoutTable, RowsAreLaidOutAsTheDesignSays) {
  double sin[kHalf], cos[kHalf];
  for (int k = 0; k < kHalf; ++k) sin[k] = 1 + k, cos[k] = -1 - k;
  for (const Documented& doc : kDocumented) {
    const std::vector<Column> row = documented_row(doc);
    std::vector<double> got(row.size(), 0.0);
    lay_out_row(row_shape(*parse_layout(doc.name), kHalf), kHalf, sin, cos, got.data());
    for (size_t c = 0; c < row.size(); ++c)
      EXPECT_EQ(got[c], row[c].is_sin ? sin[row[c].pair] : cos[row[c].pair])
          << doc.name << " column " << c;
  }
}

// The table and what derives from it are constant expressions (layout.h), at compile time here.
static_assert(layout_width(Layout::kRopeSin, 8) == 4);
static_assert(layout_width(Layout::kHalves, 7) == 7 && layout_width(Layout::kRopeCos, 7) == 3);
static_assert(columns_of_pair(Layout::kPolar, 4, 1).sin[0] == 3);
static_assert(pair_of_column(Layout::kRopeCosSin, 4, 5).is_sin);

}  // namespace
}  // namespace pev
