// The long run of the oracle-versus-Arb agreement (label `exhaustive`): PEV_ARB_CASES cases per
// format (default 10^5), from the seed PEV_ARB_SEED (default differs from the sampled test's, so
// the two runs cover different cases). Replay a reported failure from its printed case.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "peverify/oracle/arb_agreement_testutil.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle {
namespace {

constexpr int kCasesPerSpec = 25;

void expect_agreement(Dtype target) {
  const uint64_t count = agreement::env_or("PEV_ARB_CASES", 100000);
  const uint64_t seed = agreement::env_or("PEV_ARB_SEED", 7340033);
  const auto start = std::chrono::steady_clock::now();
  const auto cases = agreement::sample_cases(seed, static_cast<int>(count), kCasesPerSpec);
  const agreement::AgreementSummary s = agreement::run_agreement(cases, target);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::string shown;
  for (const std::string& f : s.failures) shown += "\n  " + f;
  EXPECT_EQ(s.failure_count, 0u) << s.failure_count << " of " << cases.size()
                                 << " cases disagree (seed " << seed << "):" << shown;
  ::testing::Test::RecordProperty("cases", std::to_string(cases.size()));
  ::testing::Test::RecordProperty("seconds", std::to_string(took.count()));
  fmt::print("{}: {} cases, {} values, {:.1f} s\n", name_of(target), cases.size(), s.elements,
             took.count());
}

// Random rotary recipes (PEV_ARB_RECIPE_CASES per format, default 10^5), both engines.
void expect_recipe_agreement(Dtype target) {
  const uint64_t count = agreement::env_or("PEV_ARB_RECIPE_CASES", 100000);
  const uint64_t seed = agreement::env_or("PEV_ARB_SEED", 7340033) + 1;
  const auto cases = agreement::sample_recipe_cases(seed, static_cast<int>(count), 20);
  for (const EngineKind kind : {EngineKind::kMpfr, EngineKind::kFast}) {
    const auto start = std::chrono::steady_clock::now();
    const agreement::AgreementSummary s = agreement::run_agreement(cases, target, kind);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::string shown;
    for (const std::string& f : s.failures) shown += "\n  " + f;
    EXPECT_EQ(s.failure_count, 0u)
        << name_of(kind) << ": " << s.failure_count << " of " << cases.size()
        << " recipe cases disagree (seed " << seed << "):" << shown;
    fmt::print("{} recipes, {} engine: {} cases, {:.1f} s\n", name_of(target), name_of(kind),
               cases.size(), took.count());
  }
}

TEST(ExhaustiveMpfrVsArb, Float64) { expect_agreement(Dtype::kFloat64); }
TEST(ExhaustiveMpfrVsArb, Float32) { expect_agreement(Dtype::kFloat32); }
TEST(ExhaustiveMpfrVsArb, Float16) { expect_agreement(Dtype::kFloat16); }
TEST(ExhaustiveMpfrVsArb, BFloat16) { expect_agreement(Dtype::kBFloat16); }
TEST(ExhaustiveRecipesVsArb, Float64) { expect_recipe_agreement(Dtype::kFloat64); }
TEST(ExhaustiveRecipesVsArb, Float32) { expect_recipe_agreement(Dtype::kFloat32); }
TEST(ExhaustiveRecipesVsArb, Float16) { expect_recipe_agreement(Dtype::kFloat16); }
TEST(ExhaustiveRecipesVsArb, BFloat16) { expect_recipe_agreement(Dtype::kBFloat16); }

}  // namespace
}  // namespace pev::oracle
