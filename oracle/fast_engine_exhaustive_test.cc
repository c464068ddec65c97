// The long run of the fast engine against the MPFR engine (label `exhaustive`): PEV_FAST_CASES
// elements per format (default 10^7), each compared bit for bit in the format and in float64,
// from the seed PEV_FAST_SEED. Also the whole d 512 tables in float64. Prints the hand-off rate.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdlib>
#include <string>

#include "peverify/oracle/engine.h"
#include "peverify/oracle/fast_engine_testutil.h"
#include "peverify/oracle/table.h"

namespace pev::oracle {
namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  return (*end == '\0' && v > 0) ? v : fallback;
}

class ExhaustiveFastVsMpfr : public testing::TestWithParam<Dtype> {};

TEST_P(ExhaustiveFastVsMpfr, RandomElements) {
  constexpr int kPositionsPerTile = 256, kMaxPairs = 128;
  const Dtype dtype = GetParam();
  const uint64_t cases = env_or("PEV_FAST_CASES", 10000000);
  const uint64_t seed = env_or("PEV_FAST_SEED", 9001) + static_cast<uint64_t>(dtype);
  const auto start = std::chrono::steady_clock::now();
  const auto tiles = fastcheck::random_tiles(seed, cases, kPositionsPerTile, kMaxPairs);
  uint64_t handed = 0;
  const fastcheck::Mismatches m = fastcheck::compare_random(tiles, dtype, &handed);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::string shown;
  for (const std::string& s : m.shown) shown += "\n  " + s;
  EXPECT_EQ(m.count, 0u) << m.count << " of " << m.elements << " disagree (seed " << seed
                         << "):" << shown;
  EXPECT_GE(m.elements, cases);
  RecordProperty("elements", std::to_string(m.elements));
  RecordProperty("handed_off", std::to_string(handed));
  fmt::print("{}: {} elements ({} specs), {} handed to MPFR ({:.2g}), {:.1f} s\n", name_of(dtype),
             m.elements, tiles.size(), handed,
             static_cast<double>(handed) / static_cast<double>(m.elements), took.count());
}

INSTANTIATE_TEST_SUITE_P(Formats, ExhaustiveFastVsMpfr,
                         testing::Values(Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16,
                                         Dtype::kFloat64),
                         [](const auto& info) { return std::string(name_of(info.param)); });

// Random rotary recipes (PEV_FAST_RECIPES specs per format, default 2000), 16 positions of every
// pair in each of the four regions up to 2^40: ~6 10^6 elements per format.
TEST_P(ExhaustiveFastVsMpfr, RandomRecipes) {
  const Dtype dtype = GetParam();
  const uint64_t specs = env_or("PEV_FAST_RECIPES", 2000);
  const uint64_t seed = env_or("PEV_FAST_SEED", 9001) + 100 + static_cast<uint64_t>(dtype);
  uint64_t handed = 0;
  const fastcheck::Mismatches m =
      fastcheck::compare_recipes(seed, static_cast<int>(specs), 16, dtype, &handed);
  std::string shown;
  for (const std::string& s : m.shown) shown += "\n  " + s;
  EXPECT_EQ(m.count, 0u) << m.count << " of " << m.elements << " disagree (seed " << seed
                         << "):" << shown;
  RecordProperty("elements", std::to_string(m.elements));
  RecordProperty("handed_off", std::to_string(handed));
  fmt::print("{} recipes: {} elements, {} handed to MPFR\n", name_of(dtype), m.elements, handed);
}

// The unit run's d 512 tables (fast_engine_test.cc) in float64, where every element's float64
// value is also its target value.
TEST(ExhaustiveFastVsMpfr, Float64Tables) {
  for (const uint64_t start : {uint64_t{0}, uint64_t{1000000}, (uint64_t{1} << 24) - 2048}) {
    TableSpec spec;
    spec.d_model = 512;
    spec.start = start;
    const ExactTable a = compute_table(*make_fast_engine(spec, Dtype::kFloat64), spec, 2048);
    const ExactTable b = compute_table(*make_mpfr_engine(spec, Dtype::kFloat64), spec, 2048);
    uint64_t differ = 0;
    for (size_t i = 0; i < a.rounded.size(); ++i)
      differ += std::bit_cast<uint64_t>(a.rounded[i]) != std::bit_cast<uint64_t>(b.rounded[i]);
    EXPECT_EQ(differ, 0u) << "start " << start;
  }
}

}  // namespace
}  // namespace pev::oracle
