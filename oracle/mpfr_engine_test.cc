#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "peverify/encoding/format.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"

namespace pev::oracle {
namespace {

TableSpec seed_spec() {
  TableSpec spec;
  spec.d_model = 4;
  return spec;
}

// The values the seeds print (8 significant digits), from the numpy tutorials.
TEST(MpfrEngine, ReproducesTheSeedsPrintedValues) {
  const TableSpec spec = seed_spec();
  const auto engine = make_mpfr_engine(spec, Dtype::kFloat64);
  const ExactTable t = compute_table(*engine, spec, 11, 1);
  const double pe1[] = {0.84147098, 0.54030231, 0.00999983, 0.99995};
  const double pe10[] = {-0.54402111, -0.83907153, 0.09983342, 0.99500417};
  for (int c = 0; c < 4; ++c) {
    EXPECT_NEAR(t.rounded[1 * 4 + c], pe1[c], 5e-9) << "PE(1)[" << c << "]";
    EXPECT_NEAR(t.rounded[10 * 4 + c], pe10[c], 5e-9) << "PE(10)[" << c << "]";
  }
}

TEST(MpfrEngine, PositionZeroIsExactWithPositiveZeros) {
  const TableSpec spec = seed_spec();
  for (Dtype t : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    const ExactTable table = compute_table(*make_mpfr_engine(spec, t), spec, 1, 1);
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(encode_exact(table.rounded[c], t), encode_exact(c % 2 ? 1.0 : 0.0, t)) << c;
  }
}

TEST(MpfrEngine, Float64ResultsAreTheDoubleFormulaWithinItsOwnError) {
  TableSpec spec;
  spec.d_model = 64;
  const ExactTable t = compute_table(*make_mpfr_engine(spec, Dtype::kFloat64), spec, 300, 2);
  for (uint64_t pos = 0; pos < 300; ++pos)
    for (int c = 0; c < 64; ++c) {
      const Column col = column_at(spec, c);
      const double a = pos * std::pow(1e4, -2.0 * col.pair / 64);
      const double naive = col.is_sin ? std::sin(a) : std::cos(a);
      ASSERT_NEAR(t.rounded[pos * 64 + c], naive, 1e-13) << pos << " " << c;
    }
}

// Rounding the double result to float is double rounding: it must agree with the direct
// rounding except where the double lies within its own ulp of a float midpoint.
TEST(MpfrEngine, DirectFloat32RoundingDiffersFromDoubleRoundingOnlyAtMidpoints) {
  TableSpec spec;
  spec.d_model = 512;
  spec.start = 1 << 20;
  const auto engine = make_mpfr_engine(spec, Dtype::kFloat32);
  const ExactTable t = compute_table(*engine, spec, 64, 0);
  ASSERT_EQ(t.rounded.size(), 64u * 512);
  ASSERT_EQ(t.exact.size(), t.rounded.size());
  for (size_t i = 0; i < t.rounded.size(); ++i) {
    const float via_double = static_cast<float>(t.exact[i]);
    if (via_double == static_cast<float>(t.rounded[i])) continue;
    const double ulp = ulp_of(t.exact[i], Dtype::kFloat32);
    const double to_midpoint = std::fabs(std::fabs(t.exact[i] - via_double) - ulp / 2);
    EXPECT_LE(to_midpoint, ulp_of(t.exact[i], Dtype::kFloat64)) << std::hexfloat << t.exact[i];
  }
}

TEST(MpfrEngine, LayoutsAndStartsSelectTheSameValues) {
  TableSpec a;
  a.d_model = 16;
  a.base = 5e5;
  a.start = 1000;
  TableSpec b = a;
  b.layout = Layout::kHalves;
  TableSpec c = a;
  c.layout = Layout::kRopeSinDup;
  c.start = 1003;
  const ExactTable ta = compute_table(*make_mpfr_engine(a, Dtype::kBFloat16), a, 8, 2);
  const ExactTable tb = compute_table(*make_mpfr_engine(b, Dtype::kBFloat16), b, 8, 2);
  const ExactTable tc = compute_table(*make_mpfr_engine(c, Dtype::kBFloat16), c, 4, 1);
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(ta.rounded[r * 16 + 2 * k], tb.rounded[r * 16 + k]);
      EXPECT_EQ(ta.rounded[r * 16 + 2 * k + 1], tb.rounded[r * 16 + 8 + k]);
      if (r >= 3 && r < 7) {
        EXPECT_EQ(ta.rounded[r * 16 + 2 * k], tc.rounded[(r - 3) * 16 + k]);
        EXPECT_EQ(ta.rounded[r * 16 + 2 * k], tc.rounded[(r - 3) * 16 + 8 + k]);
      }
    }
}

TEST(MpfrEngine, CountsEveryPairOnceInTheRungStatistics) {
  TableSpec spec;
  spec.d_model = 32;
  spec.start = uint64_t{1} << 40;
  const auto engine = make_mpfr_engine(spec, Dtype::kFloat16);
  compute_table(*engine, spec, 40, 2);
  EXPECT_EQ(engine->stats().total(), 40u * 16u);
}

TEST(MpfrEngine, HandlesTheLargestPositions) {
  TableSpec spec;
  spec.d_model = 8;
  spec.start = kMaxPosition - 3;
  const ExactTable t = compute_table(*make_mpfr_engine(spec, Dtype::kFloat32), spec, 4, 1);
  for (size_t i = 0; i < t.rounded.size(); ++i) {
    ASSERT_LE(std::fabs(t.rounded[i]), 1.0);
    EXPECT_EQ(t.rounded[i], static_cast<double>(static_cast<float>(t.rounded[i])));
  }
  // Pair 0 has w = 1: sin(2^53 - 3) from the double formula is only good to ~1e-16 * 2^53 ~ 1,
  // so check against the identity sin^2 + cos^2 = 1 instead.
  for (int r = 0; r < 4; ++r) {
    const double s = t.exact[r * 8], c = t.exact[r * 8 + 1];
    EXPECT_NEAR(s * s + c * c, 1.0, 1e-15);
  }
}

}  // namespace
}  // namespace pev::oracle
