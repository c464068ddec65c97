#include "peverify/bench/engine_benchmark.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace pev::bench {
namespace {

TEST(CompareEngines, MeasuresBothEnginesOnTheSameTiles) {
  TableSpec spec;
  spec.d_model = 64;
  spec.start = 1000000;
  const EngineComparison c = compare_engines(spec, Dtype::kFloat32, 100, 0.3);
  EXPECT_GE(c.rounds, 3);
  EXPECT_GT(c.mpfr_values_per_s, 0);
  EXPECT_GT(c.fast_values_per_s, c.mpfr_values_per_s);
  EXPECT_DOUBLE_EQ(c.speedup, c.fast_values_per_s / c.mpfr_values_per_s);
  EXPECT_GT(c.fast_elements, 0u);
  EXPECT_EQ(c.handed_off, 0u);
  EXPECT_EQ(c.handoff_rate, 0.0);
  EXPECT_FALSE(c.fast_target.empty());
}

TEST(CompareEngines, RejectsAnInvalidRange) {
  TableSpec spec;
  spec.d_model = 7;
  EXPECT_THROW(compare_engines(spec, Dtype::kFloat32, 10, 0.1), std::invalid_argument);
}

}  // namespace
}  // namespace pev::bench
