// The SLEEF entries: every entry on every ISA this CPU runs against the oracle, the ISAs against
// each other where their arithmetic is the same, and layouts and starts against each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/core/sleef/sleef_dispatch.h"
#include "peverify/crosscheck/vector_testutil.h"

namespace pev::core {
namespace {

using testutil::Block;
using testutil::Worst;

// This module's entries (other modules may use SLEEF too).
std::vector<const Implementation*> sleef_entries() {
  std::vector<const Implementation*> out;
  for (const Implementation& e : registry())
    if ((e.backend == Backend::kSleefU10 || e.backend == Backend::kSleefU35) &&
        (e.strategy == Strategy::kPow || e.strategy == Strategy::kLogspace))
      out.push_back(&e);
  return out;
}

TEST(SleefDispatch, ChoosesTheBestIsaThisCpuRunsAndRecordsIt) {
  const auto isas = sleef_isas();
  const auto best = std::find_if(isas.begin(), isas.end(), sleef_isa_supported);
  ASSERT_NE(best, isas.end());
  EXPECT_EQ(sleef_isa(), *best);
  EXPECT_TRUE(sleef_isa_supported("sse2"));  // the x86-64 baseline
  EXPECT_FALSE(sleef_isa_supported("neon"));
  EXPECT_EQ(sleef_fill_for_isa("neon"), nullptr);
  const std::vector<const Implementation*> entries = sleef_entries();
  EXPECT_EQ(entries.size(), 12u);  // {pow, logspace} x {u10, u35} x {f32, f16, bf16}
  for (const Implementation* e : entries)
    EXPECT_NE(e->flags.find("isa=" + std::string(sleef_isa())), std::string::npos) << e->flags;
  RecordProperty("sleef_isa", std::string(sleef_isa()));
}

class SleefOracle
    : public testing::TestWithParam<std::tuple<const Implementation*, std::string_view>> {};

// Every element of the grid within the entry's claimed budget, on each ISA: the ISAs do not all
// give the same bits (below), so each is judged on its own.
TEST_P(SleefOracle, MeetsItsClaimOnTheGrid) {
  const auto [impl, isa] = GetParam();
  const FillFunction fill = sleef_fill_for_isa(isa);
  if (fill == nullptr) GTEST_SKIP() << "this CPU does not run " << isa;
  const Implementation pinned = testutil::with_fill(*impl, fill);
  double max_excess = 0;
  for (const Block& b : testutil::oracle_grid(impl->max_position, impl->max_base)) {
    const Worst w =
        testutil::worst_against_claim(pinned, b.spec, generate(pinned, b.spec, b.count));
    EXPECT_LE(w.excess, 1) << testutil::describe(w, b.spec);
    max_excess = std::max(max_excess, w.excess);
  }
  RecordProperty("max_error_over_budget", std::to_string(max_excess));
}

INSTANTIATE_TEST_SUITE_P(EveryEntryAndIsa, SleefOracle,
                         testing::Combine(testing::ValuesIn(sleef_entries()),
                                          testing::ValuesIn(sleef_isas())),
                         [](const auto& info) {
                           return testutil::test_name(std::get<0>(info.param)->name + "_" +
                                                      std::string(std::get<1>(info.param)));
                         });

// Other schedules and layouts through the same fill: t2t against the oracle, and every layout
// of one entry per output type against the oracle.
TEST(SleefOracleLayouts, EveryLayoutAndTheT2TScheduleMeetTheClaim) {
  for (const char* name : {"cpu/logspace/f32>f32/sleef-u10", "cpu/pow/f32>bf16/sleef-u35",
                           "cpu/logspace/f32>f16/sleef-u35"}) {
    const Implementation* impl = find_implementation(name);
    ASSERT_NE(impl, nullptr) << name;
    for (Layout l : {Layout::kInterleaved, Layout::kHalves, Layout::kRopeCos, Layout::kRopeSin,
                     Layout::kRopeCosDup, Layout::kRopeSinDup})
      for (Schedule s : {Schedule::kPaper, Schedule::kT2T}) {
        TableSpec spec;
        spec.d_model = 64;
        spec.layout = l;
        spec.schedule = s;
        const Worst w = testutil::worst_against_claim(*impl, spec, generate(*impl, spec, 512));
        EXPECT_LE(w.excess, 1) << name << " " << testutil::describe(w, spec);
      }
  }
}

// Widths whose d/2 is not a multiple of the vector: the padded lanes must not leak into the table.
TEST(SleefOracleLayouts, WidthsThatNeedPaddingMeetTheClaim) {
  for (const Implementation* impl : sleef_entries())
    for (const int d : {2, 6, 34, 130}) {
      TableSpec spec;
      spec.d_model = d;
      spec.layout = Layout::kHalves;
      const Worst w = testutil::worst_against_claim(*impl, spec, generate(*impl, spec, 256));
      EXPECT_LE(w.excess, 1) << impl->name << " " << testutil::describe(w, spec);
    }
}

// The ISAs compared. sse4 and sse2 run the same 4-lane arithmetic without FMA: same bits. AVX2
// and AVX-512F both use FMA, but SLEEF's sincosf picks its argument reduction per vector, from
// whether *every* lane is below 125 (and, for u35, 39000): a lane's bits then depend on its
// neighbours, and 8 and 16 lanes group them differently. So those two agree wherever a 16-lane
// group does not straddle a threshold. FMA against no FMA: no bitwise claim; both meet the
// claim above.
std::vector<Block> comparison_blocks() {
  std::vector<Block> blocks = testutil::oracle_grid(kMaxPosition, 1e6);
  for (const int d : {64, 512})
    for (const double base : {1e4, 5e5}) {
      TableSpec spec;
      spec.d_model = d;
      spec.base = base;
      spec.start = uint64_t{1} << 36;  // every angle above 39000 here
      blocks.push_back({spec, 32});
    }
  return blocks;
}

TEST(SleefIsas, Sse4AndSse2GiveTheSameBits) {
  if (!sleef_isa_supported("sse4")) GTEST_SKIP() << "this CPU does not run sse4";
  for (const Implementation* impl : sleef_entries()) {
    const Implementation sse4 = testutil::with_fill(*impl, sleef_fill_for_isa("sse4"));
    const Implementation sse2 = testutil::with_fill(*impl, sleef_fill_for_isa("sse2"));
    for (const Block& b : comparison_blocks()) {
      const auto diff = testutil::bit_differences(generate(sse4, b.spec, b.count),
                                                  generate(sse2, b.spec, b.count));
      EXPECT_TRUE(diff.empty()) << impl->name << " d=" << b.spec.d_model << " base=" << b.spec.base
                                << " pos=" << b.spec.start + diff[0].row
                                << " dim=" << diff[0].column;
    }
  }
}

// SLEEF 3.5's thresholds (TRIGRANGEMAX2f, TRIGRANGEMAXf) between its reductions of sincosf.
int reduction_class(double angle, Backend backend) {
  if (angle < 125) return 0;
  return backend == Backend::kSleefU35 && angle >= 39000 ? 2 : 1;
}

// Whether the 16 lanes (pairs) around `pair` at `pos` may take different reductions. Angles
// within 1e-4 of a threshold count as straddling: the kernel rounds them, the test does not.
bool straddles(const TableSpec& spec, uint64_t pos, int pair, Backend backend) {
  const int half = spec.d_model / 2;
  const int first = pair / 16 * 16;
  int lo = 3;  // the lowest and highest reduction class among the lanes
  int hi = -1;
  for (int k = first; k < std::min(first + 16, half); ++k) {
    const double a = static_cast<double>(pos) * frequency(spec, k);
    for (const double f : {1 - 1e-4, 1 + 1e-4}) {
      lo = std::min(lo, reduction_class(a * f, backend));
      hi = std::max(hi, reduction_class(a * f, backend));
    }
  }
  return lo != hi;
}

TEST(SleefIsas, Avx512fAndAvx2GiveTheSameBitsWhereTheirLanesTakeTheSameReduction) {
  if (!sleef_isa_supported("avx512f")) GTEST_SKIP() << "this CPU does not run avx512f";
  if (!sleef_isa_supported("avx2")) GTEST_SKIP() << "this CPU does not run avx2";
  for (const Implementation* impl : sleef_entries()) {
    const Implementation avx512 = testutil::with_fill(*impl, sleef_fill_for_isa("avx512f"));
    const Implementation avx2 = testutil::with_fill(*impl, sleef_fill_for_isa("avx2"));
    uint64_t straddling = 0;
    for (const Block& b : comparison_blocks()) {
      const auto diff = testutil::bit_differences(generate(avx512, b.spec, b.count),
                                                  generate(avx2, b.spec, b.count));
      for (const testutil::Difference& d : diff) {
        const uint64_t pos = b.spec.start + d.row;
        const int pair = column_at(b.spec, d.column).pair;
        ASSERT_TRUE(straddles(b.spec, pos, pair, impl->backend))
            << impl->name
            << " differs where every lane takes the same reduction: d=" << b.spec.d_model
            << " base=" << b.spec.base << " pos=" << pos << " dim=" << d.column;
        ++straddling;
      }
    }
    // Below 125 every lane takes the fast reduction: identical whole tables.
    TableSpec small;
    small.d_model = 512;
    EXPECT_TRUE(
        testutil::bit_differences(generate(avx512, small, 125), generate(avx2, small, 125)).empty())
        << impl->name;
    RecordProperty(testutil::test_name(impl->name) + "_differences", std::to_string(straddling));
  }
}

}  // namespace
}  // namespace pev::core
