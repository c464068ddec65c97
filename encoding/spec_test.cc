#include "peverify/encoding/spec.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace pev {
namespace {

TEST(TableSpec, EveryLayoutCoversEachPairAndFunctionAsDocumented) {
  TableSpec spec;
  spec.d_model = 8;
  const struct {
    Layout layout;
    int width;
    int copies;  // how often each (pair, function) it holds appears
    bool has_sin, has_cos;
  } cases[] = {{Layout::kInterleaved, 8, 1, true, true}, {Layout::kHalves, 8, 1, true, true},
               {Layout::kRopeCos, 4, 1, false, true},    {Layout::kRopeSin, 4, 1, true, false},
               {Layout::kRopeCosDup, 8, 2, false, true}, {Layout::kRopeSinDup, 8, 2, true, false}};
  for (const auto& c : cases) {
    spec.layout = c.layout;
    ASSERT_EQ(table_width(spec), c.width) << name_of(c.layout);
    std::multiset<std::pair<int, bool>> seen;
    for (int col = 0; col < c.width; ++col) {
      const Column k = column_at(spec, col);
      ASSERT_GE(k.pair, 0);
      ASSERT_LT(k.pair, 4);
      seen.insert({k.pair, k.is_sin});
    }
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(seen.count({k, true}), c.has_sin ? c.copies : 0) << name_of(c.layout);
      EXPECT_EQ(seen.count({k, false}), c.has_cos ? c.copies : 0) << name_of(c.layout);
    }
  }
}

TEST(TableSpec, LayoutsPlaceColumnsAsTheFrameworksDo) {
  TableSpec spec;
  spec.d_model = 8;
  spec.layout = Layout::kInterleaved;  // the paper: PE[2k] = sin, PE[2k+1] = cos
  EXPECT_EQ(column_at(spec, 5).pair, 2);
  EXPECT_FALSE(column_at(spec, 5).is_sin);
  spec.layout = Layout::kHalves;  // tensor2tensor: sin block then cos block
  EXPECT_EQ(column_at(spec, 5).pair, 1);
  EXPECT_FALSE(column_at(spec, 5).is_sin);
  EXPECT_TRUE(column_at(spec, 3).is_sin);
  spec.layout = Layout::kRopeCosDup;  // Llama: [w_0 .. w_3, w_0 .. w_3]
  EXPECT_EQ(column_at(spec, 6).pair, 2);
}

TEST(TableSpec, FrequencyExponentsFollowTheSchedule) {
  TableSpec spec;
  spec.d_model = 512;
  EXPECT_EQ(frequency_exponent(spec, 3).numerator, -6);
  EXPECT_EQ(frequency_exponent(spec, 3).denominator, 512);
  spec.schedule = Schedule::kT2T;
  EXPECT_EQ(frequency_exponent(spec, 3).numerator, -3);
  EXPECT_EQ(frequency_exponent(spec, 3).denominator, 255);
}

TEST(TableSpec, ValidationNamesTheProblem) {
  TableSpec spec;
  EXPECT_FALSE(validate(spec));
  spec.d_model = 7;
  EXPECT_NE(validate(spec)->find("even"), std::string::npos);
  spec.d_model = 0;
  EXPECT_TRUE(validate(spec));
  spec.d_model = 2;
  spec.schedule = Schedule::kT2T;
  EXPECT_TRUE(validate(spec));
  spec.schedule = Schedule::kPaper;
  spec.base = 1.0;
  EXPECT_TRUE(validate(spec));
  spec.base = 10000.0;
  spec.start = kMaxPosition;
  EXPECT_FALSE(validate_range(spec, 1));
  EXPECT_TRUE(validate_range(spec, 2));
  EXPECT_TRUE(validate_range(spec, 0));
}

TEST(TableSpec, NamesRoundTrip) {
  for (Layout l : {Layout::kInterleaved, Layout::kHalves, Layout::kRopeCos, Layout::kRopeSin,
                   Layout::kRopeCosDup, Layout::kRopeSinDup})
    EXPECT_EQ(parse_layout(name_of(l)), l);
  for (Dtype t : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16})
    EXPECT_EQ(parse_dtype(name_of(t)), t);
  EXPECT_EQ(parse_schedule("t2t"), Schedule::kT2T);
  EXPECT_FALSE(parse_dtype("float8"));
}

}  // namespace
}  // namespace pev
