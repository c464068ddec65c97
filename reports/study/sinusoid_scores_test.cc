// The report's section on timestep embeddings and multi-axis RoPE: every sinusoid-registry entry
// holds its claim on every band of every table (each element against the oracle), the precise
// entries are faithful, and the section's JSON carries what the renderers read.
#include "peverify/reports/study/sinusoid_scores.h"

#include <gtest/gtest.h>

#include <set>

#include "peverify/core/sinusoids/sinusoid_registry.h"
#include "peverify/reports/render/sinusoids.h"

namespace pev::reports::study {
namespace {

TEST(SinusoidScores, EveryEntryHoldsItsClaimOnEveryBand) {
  const SinusoidScores s = study_sinusoid_scores(0);
  ASSERT_EQ(s.cases.size(), 3u);
  for (const SinusoidCaseScore& c : s.cases) {
    EXPECT_GE(c.entries.size(), 4u) << c.name;
    for (const SinusoidEntryScore& e : c.entries) {
      ASSERT_EQ(e.bands.size(), c.bands.size());
      for (size_t b = 0; b < e.bands.size(); ++b) {
        EXPECT_TRUE(e.bands[b].holds) << e.name << " on " << c.name << ", " << c.bands[b]
                                      << ": max abs " << e.bands[b].max_abs;
        if (e.name.find("precise") != std::string::npos) {
          EXPECT_TRUE(e.bands[b].faithful) << e.name << " on " << c.name << ", " << c.bands[b];
        }
      }
      EXPECT_GT(e.values_per_s, 0);
      EXPECT_GT(e.roofline_ratio, 0);
    }
  }
  // The framework's float32 arithmetic is measurably worse than one rounding at t >= 100.
  const SinusoidCaseScore& adm = s.cases[0];
  for (const SinusoidEntryScore& e : adm.entries)
    if (e.name == "cpu/diffusers-timestep/f32>f32") {
      EXPECT_GT(e.bands[2].max_abs, 1e-6);
    }
  EXPECT_FALSE(s.recommendations.empty());
  const nlohmann::json report = {{"sinusoids", to_json(s)}};
  const std::string md = render::sinusoid_scores_markdown(report);
  EXPECT_NE(md.find("100 <= t < 1000"), std::string::npos);
  EXPECT_NE(md.find("128x128 grid"), std::string::npos);
  EXPECT_NE(md.find("cpu/precise/f64>f32"), std::string::npos);
  EXPECT_NE(render::sinusoid_scores_html(report).find("<section id=\"sinusoids\">"),
            std::string::npos);
  EXPECT_EQ(render::sinusoid_scores_markdown(nlohmann::json::object()), "");
}

TEST(SinusoidRegistry, NamesAreUniqueAndEachEntryBuildsSomeCase) {
  std::set<std::string> names;
  for (const core::SinusoidImplementation& e : core::sinusoid_registry()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    bool builds = false;
    for (const SinusoidCase& c : sinusoid_cases()) builds = builds || e.builds(c.table);
    EXPECT_TRUE(builds) << e.name;
  }
}

}  // namespace
}  // namespace pev::reports::study
