// The report's rotations section: every rotation entry that runs here is measured, each within
// its claim, float32 angles' score error grows with the context while a float64 angle's does not,
// and the recommendation follows the figures.
#include "peverify/reports/study/rotation_scores.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "peverify/core/rotation/rotation_registry.h"

namespace pev::reports::study {
namespace {

const RotationScores& scores() {
  static const RotationScores s = study_rotation_scores("llama-3.1-8b", {4096, 131072}, 64);
  return s;
}

const RotationScoreRow& row(const std::string& name) {
  for (const RotationScoreRow& r : scores().rows)
    if (r.name == name) return r;
  throw std::logic_error("no row " + name);
}

TEST(RotationScores, EveryEntryIsMeasuredOrSaysWhyNot) {
  size_t runnable = 0;
  for (const core::RotationImplementation& e : core::rotation_registry()) {
    if (!e.runs_here()) {
      EXPECT_TRUE(std::any_of(scores().not_run.begin(), scores().not_run.end(), [&](const auto& n) {
        return n.first == e.name && !n.second.empty();
      })) << e.name;
      continue;
    }
    ++runnable;
    const RotationScoreRow& r = row(e.name);
    ASSERT_EQ(r.by_context.size(), 2u);
    for (const properties::ScoreError& s : r.by_context) {
      EXPECT_EQ(s.samples, 64u);
      EXPECT_GT(s.max, 0) << e.name;
      EXPECT_LE(s.median, s.max) << e.name;
      EXPECT_LE(s.budget_ratio, 1.0) << e.name << " at " << s.context << ": over its claim";
    }
  }
  EXPECT_EQ(scores().rows.size(), runnable);
  // Only a CUDA entry may not run here: every CPU rotation was measured.
  const auto cpu = std::count_if(
      core::rotation_registry().begin(), core::rotation_registry().end(),
      [](const core::RotationImplementation& e) { return e.name.starts_with("cpu/"); });
  EXPECT_GT(cpu, 0);
  EXPECT_GE(runnable, static_cast<size_t>(cpu)) << "rotation entries measured";
}

TEST(RotationScores, Float32AnglesGrowWithTheContextAndFloat64DoNot) {
  const RotationScoreRow& f32 = row("cpu/rotate/fused-f32/f32/glibc");
  const RotationScoreRow& f64 = row("cpu/rotate/fused-f64/f32/glibc");
  // fl(p w) in float32 is off by up to p w 2^-24: at 131072 that is 32 times what it is at 4096.
  EXPECT_GT(f32.by_context[1].max, 8 * f32.by_context[0].max);
  EXPECT_LT(f64.by_context[1].max, 4 * f64.by_context[0].max);
  EXPECT_GT(f32.by_context[1].max, 1000 * f64.by_context[1].max);
  // bfloat16 products cost more than float32 angles even at 131072.
  EXPECT_GT(row("cpu/rotate/hf-bf16/bf16").by_context[1].max, f32.by_context[1].max);
}

TEST(RotationScores, TheRecommendationNamesTheSmallestErrorPerInputType) {
  ASSERT_EQ(scores().recommendations.size(), 2u);
  // A float64 angle and our precise rotation both round every output once or nearly: equal.
  EXPECT_NE(scores().recommendations[0].find(
                "q and k in float32: cpu/rotate/fused-f64/f32/glibc or cpu/rotate/precise/f32 ("),
            std::string::npos)
      << scores().recommendations[0];
  EXPECT_NE(scores().recommendations[1].find("q and k in bfloat16: cpu/rotate/hf-bf16/bf16"),
            std::string::npos)
      << scores().recommendations[1];
  // report.json's section holds what the renderers read (reports/render/rotations_test.cc).
  const nlohmann::json j = to_json(scores());
  EXPECT_EQ(j["entries"].size(), scores().rows.size());
  EXPECT_EQ(j["recommendations"].size(), 2u);
  EXPECT_EQ(j["samples"], 64u);
}

}  // namespace
}  // namespace pev::reports::study
