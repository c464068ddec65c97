// The Highway entries on every Highway target this CPU runs (the target is in each test's name):
// against the oracle, against each other where the arithmetic is the same, and layouts and
// starts against each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "hwy/targets.h"
#include "peverify/core/generate.h"
#include "peverify/core/highway/highway_dispatch.h"
#include "peverify/core/registry.h"
#include "peverify/crosscheck/vector_testutil.h"

namespace pev::core {
namespace {

using testutil::Block;
using testutil::Worst;

// This module's entries (other modules may use Highway too).
std::vector<const Implementation*> highway_entries() {
  std::vector<const Implementation*> out;
  for (const Implementation& e : registry())
    if (e.backend == Backend::kHighway && e.strategy == Strategy::kLogspace) out.push_back(&e);
  return out;
}

// Pins Highway's dynamic dispatch to one target for the lifetime of the object.
class PinTarget {
 public:
  explicit PinTarget(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~PinTarget() { hwy::SetSupportedTargetsForTest(0); }
  PinTarget(const PinTarget&) = delete;
  PinTarget& operator=(const PinTarget&) = delete;
};

TEST(HighwayDispatch, NamesTheBestTargetThisCpuRunsAndRecordsIt) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(highway_target(), hwy::TargetName(targets.front()));  // lower bit, better target
  const std::vector<const Implementation*> entries = highway_entries();
  EXPECT_EQ(entries.size(), 3u);  // logspace x {f32, f16, bf16}; Highway has no Pow
  for (const Implementation* e : entries)
    EXPECT_NE(e->flags.find("target=" + std::string(highway_target())), std::string::npos)
        << e->flags;
  for (const int64_t t : targets) {
    const PinTarget pin(t);
    EXPECT_EQ(highway_target(), hwy::TargetName(t));
  }
  RecordProperty("highway_target", std::string(highway_target()));
}

class HighwayOracle : public testing::TestWithParam<std::tuple<int64_t, const Implementation*>> {};

TEST_P(HighwayOracle, MeetsItsClaimOnTheGrid) {
  const auto [target, impl] = GetParam();
  const PinTarget pin(target);
  double max_excess = 0;
  for (const Block& b : testutil::oracle_grid(impl->max_position, impl->max_base)) {
    const Worst w = testutil::worst_against_claim(*impl, b.spec, generate(*impl, b.spec, b.count));
    EXPECT_LE(w.excess, 1) << testutil::describe(w, b.spec);
    max_excess = std::max(max_excess, w.excess);
  }
  RecordProperty("max_error_over_budget", std::to_string(max_excess));
}

INSTANTIATE_TEST_SUITE_P(EveryTargetAndEntry, HighwayOracle,
                         testing::Combine(testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                                          testing::ValuesIn(highway_entries())),
                         [](const auto& info) {
                           return std::string(hwy::TargetName(std::get<0>(info.param))) + "_" +
                                  testutil::test_name(std::get<1>(info.param)->name);
                         });

// Beyond max_position the claim would fail: Sin and Cos turn the quadrant back into a float,
// which is exact only below 2^24, and from about 2^25.75 they leave [-1, 1]. This pins the
// reason for the limit, so that a Highway upgrade that lifts it shows up here.
TEST(HighwayRange, MaxPositionIsWhereTheReductionStaysExact) {
  const Implementation* impl = highway_entries().front();
  EXPECT_EQ(impl->max_position, uint64_t{1} << 24);
  TableSpec spec;
  spec.d_model = 64;
  spec.start = uint64_t{1} << 27;
  const GeneratedTable t = generate(*impl, spec, 64);
  double largest = 0;
  for (uint64_t i = 0; i < t.size(); ++i) largest = std::max(largest, std::abs(t.value(i)));
  EXPECT_GT(largest, 1) << "Highway's Sin/Cos stay bounded at 2^27 now: revisit max_position";
}

TEST(HighwayOracleLayouts, EveryLayoutAndTheT2TScheduleMeetTheClaim) {
  for (const Implementation* impl : highway_entries())
    for (Layout l : {Layout::kInterleaved, Layout::kHalves, Layout::kRopeCos, Layout::kRopeSin,
                     Layout::kRopeCosDup, Layout::kRopeSinDup})
      for (Schedule s : {Schedule::kPaper, Schedule::kT2T}) {
        TableSpec spec;
        spec.d_model = 64;
        spec.layout = l;
        spec.schedule = s;
        const Worst w = testutil::worst_against_claim(*impl, spec, generate(*impl, spec, 512));
        EXPECT_LE(w.excess, 1) << impl->name << " " << testutil::describe(w, spec);
      }
}

// Widths whose d/2 is not a multiple of the vector: the padded lanes must not leak into the table.
TEST(HighwayOracleLayouts, WidthsThatNeedPaddingMeetTheClaim) {
  for (const Implementation* impl : highway_entries())
    for (const int d : {2, 6, 34, 130}) {
      TableSpec spec;
      spec.d_model = d;
      spec.layout = Layout::kHalves;
      const Worst w = testutil::worst_against_claim(*impl, spec, generate(*impl, spec, 256));
      EXPECT_LE(w.excess, 1) << impl->name << " " << testutil::describe(w, spec);
    }
}

// Highway's Exp, Sin and Cos have no data-dependent branches, so the lane count does not
// matter; MulAdd is an FMA on AVX2 and AVX3 and a multiply then an add before, so targets give
// the same bits within each of those two groups.
TEST(HighwayTargets, TargetsWithTheSameArithmeticGiveTheSameBits) {
#if HWY_ARCH_X86
  const auto fma = [](int64_t t) { return (t & (HWY_AVX2 | HWY_AVX3 | HWY_AVX3_DL)) != 0; };
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  int compared = 0;
  for (const Implementation* impl : highway_entries())
    for (const Block& b : testutil::oracle_grid(impl->max_position, impl->max_base))
      for (const bool group : {true, false}) {
        std::vector<GeneratedTable> tables;
        std::vector<int64_t> names;
        for (const int64_t t : targets) {
          if (fma(t) != group) continue;
          const PinTarget pin(t);
          tables.push_back(generate(*impl, b.spec, b.count));
          names.push_back(t);
        }
        for (size_t i = 1; i < tables.size(); ++i, ++compared) {
          const auto diff = testutil::bit_differences(tables[0], tables[i]);
          EXPECT_TRUE(diff.empty())
              << impl->name << ": " << hwy::TargetName(names[i]) << " differs from "
              << hwy::TargetName(names[0]) << " at d=" << b.spec.d_model << " base=" << b.spec.base
              << " pos=" << b.spec.start + diff[0].row << " dim=" << diff[0].column;
        }
      }
  if (compared == 0) GTEST_SKIP() << "no two targets with the same arithmetic run here";
#else
  GTEST_SKIP() << "the FMA grouping of targets is written for x86";
#endif
}

}  // namespace
}  // namespace pev::core
