// What of `peverify measure-cuda` runs without a device: its figures' arithmetic, its refusal, and
// the study's rule that CUDA entries are evaluated exactly where they can run.
#include "peverify/reports/measured/measure_cuda.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "peverify/core/cuda/device_timing.h"
#include "peverify/reports/study/study.h"

namespace pev::reports::measured {
namespace {

TEST(MeasureCuda, SpeedFiguresAreMediansBesideTheRoofline) {
  // Three repetitions of a kernel writing 12 bytes (6 values), against a roofline of 8 bytes/s.
  const nlohmann::json s = speed_figures({2, 1, 4}, 6, 12, 8);
  EXPECT_EQ(s["seconds"]["median"], 2);
  EXPECT_EQ(s["values_per_s"]["median"], 3);
  EXPECT_EQ(s["values_per_s"]["min"], 1.5);
  EXPECT_EQ(s["values_per_s"]["max"], 6);
  EXPECT_EQ(s["bytes_per_s"]["median"], 6);
  EXPECT_EQ(s["roofline_ratio"], 0.75);
  EXPECT_EQ(s["repetitions"], 3);
}

TEST(MeasureCuda, WithoutADeviceItSaysSoAndMeasuresNothing) {
  if (core::cuda::describe_device()) GTEST_SKIP() << "a CUDA device is present";
  try {
    (void)measure_cuda(MeasureOptions{}, [](const std::string&, double) {});
    ADD_FAILURE() << "measured without a device";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
  EXPECT_THROW(core::cuda::time_device_stores(1 << 20, 1), std::runtime_error);
}

TEST(MeasureCuda, TheStudyEvaluatesCudaEntriesWhereTheyRunAndNowhereElse) {
  study::StudyConfig config;
  config.filter = "^cuda/precise/f64>f32/";
  config.bench = false;
  const study::StudyPlan plan(config);
  ASSERT_EQ(plan.impls().size(), 1u);
  EXPECT_EQ(plan.shards().empty(), !core::cuda::describe_device().has_value());
  config.filter = "^cpu/precise/f64>f32/";
  EXPECT_FALSE(study::StudyPlan(config).shards().empty());
}

}  // namespace
}  // namespace pev::reports::measured
