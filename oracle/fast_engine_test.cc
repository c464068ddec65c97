// The fast engine against the MPFR engine, bit for bit: whole tables, the hard cases, random cases
// over the whole domain (more under `exhaustive`), every SIMD target this CPU runs; and its error
// bound against MPFR at 400 bits.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "hwy/targets.h"
#include "peverify/encoding/format.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/fast_engine_kernel.h"
#include "peverify/oracle/fast_engine_testutil.h"
#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/table.h"

namespace pev::oracle {
namespace {

using fastcheck::Mismatches;
using fastcheck::shown;

using fastcheck::compare_tables;

class FastVsMpfrTable : public testing::TestWithParam<std::tuple<uint64_t, Dtype>> {};

// The calibration notes' acceptance tables (docs/architecture.md §11): d 512, 2048 positions from
// 0, 10^6 and 2^24 - 2048.
TEST_P(FastVsMpfrTable, EveryElementBitIdentical) {
  const auto [start, dtype] = GetParam();
  TableSpec spec;
  spec.d_model = 512;
  spec.start = start;
  const Mismatches m = compare_tables(spec, 2048, dtype);
  EXPECT_EQ(m.elements, 2048u * 512u);
  EXPECT_EQ(m.count, 0u) << shown(m);
}

INSTANTIATE_TEST_SUITE_P(
    D512, FastVsMpfrTable,
    testing::Combine(testing::Values(uint64_t{0}, uint64_t{1000000}, (uint64_t{1} << 24) - 2048),
                     testing::Values(Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16)),
    [](const auto& info) {
      return std::string(name_of(std::get<1>(info.param))) + "_start" +
             std::to_string(std::get<0>(info.param));
    });

TEST(FastVsMpfr, HardCasesGiveTheRecordedBits) {
  std::string error;
  const auto cases = fastcheck::read_hard_cases("oracle/testdata/hard_cases.tsv", error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_GE(cases.size(), 30u);
  uint64_t handed = 0;
  for (const fastcheck::HardCase& c : cases) {
    SCOPED_TRACE(c.text);
    const auto fast = make_fast_engine(c.spec, c.dtype);
    const auto mpfr = make_mpfr_engine(c.spec, c.dtype);
    TileValues v;
    fast->evaluate({c.pos, 1, c.pair, 1}, v);
    const double got = c.is_sin ? v.sin_rounded[0] : v.cos_rounded[0];
    EXPECT_EQ(encode_exact(got, c.dtype), c.expected_bits) << std::hexfloat << got;
    Mismatches m;
    fastcheck::compare_tile(*fast, *mpfr, c.spec, {c.pos, 1, c.pair, 1}, c.dtype, m);
    EXPECT_EQ(m.count, 0u) << shown(m);
    handed += fast->stats().handed_off.load();
  }
  RecordProperty("handed_off", std::to_string(handed));
  fmt::print("{} hard cases, {} evaluations handed to MPFR\n", cases.size(), handed);
}

// The unit run's share of the random cases; fast_engine_exhaustive_test.cc runs 10^7 per format.
class FastVsMpfrRandom : public testing::TestWithParam<Dtype> {};

TEST_P(FastVsMpfrRandom, SampleBitIdentical) {
  const Dtype dtype = GetParam();
  const auto tiles = fastcheck::random_tiles(20260101 + static_cast<int>(dtype), 60000, 60, 64);
  uint64_t handed = 0;
  const Mismatches m = fastcheck::compare_random(tiles, dtype, &handed);
  EXPECT_GT(m.elements, 50000u);
  EXPECT_EQ(m.count, 0u) << m.count << " of " << m.elements << shown(m);
  EXPECT_LE(handed * 1000, m.elements) << "hand-offs should be rare";
}

INSTANTIATE_TEST_SUITE_P(Formats, FastVsMpfrRandom,
                         testing::Values(Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16,
                                         Dtype::kFloat64),
                         [](const auto& info) { return std::string(name_of(info.param)); });

// Pins Highway's dynamic dispatch to one target for the lifetime of the object.
class PinTarget {
 public:
  explicit PinTarget(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~PinTarget() { hwy::SetSupportedTargetsForTest(0); }
  PinTarget(const PinTarget&) = delete;
  PinTarget& operator=(const PinTarget&) = delete;
};

class FastEngineTarget : public testing::TestWithParam<int64_t> {};

// Every target gives the same bits (those without FMA take Dekker's product): a table slice at
// the three starts and a random sample, against one MPFR reference.
TEST_P(FastEngineTarget, BitIdenticalToMpfr) {
  const PinTarget pin(GetParam());
  ASSERT_STREQ(fast::dispatched_target(), hwy::TargetName(GetParam()));
  for (const uint64_t start : {uint64_t{0}, uint64_t{1000000}, (uint64_t{1} << 24) - 2048}) {
    TableSpec spec;
    spec.d_model = 512;
    spec.start = start;
    const Mismatches m = compare_tables(spec, 48, Dtype::kFloat32);
    EXPECT_EQ(m.count, 0u) << "start " << start << shown(m);
  }
  const auto tiles = fastcheck::random_tiles(77, 5000, 10, 40);
  const Mismatches m = fastcheck::compare_random(tiles, Dtype::kFloat16);
  EXPECT_EQ(m.count, 0u) << shown(m);
}

INSTANTIATE_TEST_SUITE_P(Highway, FastEngineTarget,
                         testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         [](const auto& info) { return std::string(hwy::TargetName(info.param)); });

TEST(FastEngine, PositionZeroIsExactWithPositiveZeros) {
  TableSpec spec;
  spec.d_model = 6;
  for (Dtype t : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    const auto engine = make_fast_engine(spec, t);
    TileValues v;
    engine->evaluate({0, 2, 0, 3}, v);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(std::bit_cast<uint64_t>(v.sin_rounded[i]), 0u);
      EXPECT_EQ(std::bit_cast<uint64_t>(v.sin_exact[i]), 0u);
      EXPECT_EQ(v.cos_rounded[i], 1.0);
    }
    EXPECT_EQ(engine->stats().handed_off.load(), 0u);
  }
}

// sin(pos) for pos a continued-fraction numerator of pi is ~2^-46 or ~2^-52: float16 underflows
// to a zero with the sign of the exact value. Also the largest positions, and past 2^53 (which
// the kernel cannot hold exactly, so MPFR takes it).
TEST(FastEngine, SignedZerosAndTheLargestPositions) {
  TableSpec spec;
  spec.d_model = 2;
  const auto fast = make_fast_engine(spec, Dtype::kFloat16);
  const auto mpfr = make_mpfr_engine(spec, Dtype::kFloat16);
  TileValues v;
  fast->evaluate({8958937768937, 1, 0, 1}, v);
  EXPECT_EQ(encode_exact(v.sin_rounded[0], Dtype::kFloat16), 0x8000u);
  fast->evaluate({5706674932067741, 1, 0, 1}, v);
  EXPECT_EQ(encode_exact(v.sin_rounded[0], Dtype::kFloat16), 0x0000u);
  Mismatches m;
  fastcheck::compare_tile(*fast, *mpfr, spec, {kMaxPosition - 40, 41, 0, 1}, Dtype::kFloat16, m);
  const uint64_t handed = fast->stats().handed_off.load();
  fastcheck::compare_tile(*fast, *mpfr, spec, {kMaxPosition + 1, 2, 0, 1}, Dtype::kFloat16, m);
  EXPECT_EQ(fast->stats().handed_off.load(), handed + 2);
  EXPECT_EQ(m.count, 0u) << shown(m);
}

// Rows rotated from an anchor row (fast_engine.md, N) whose values lie next to 0, where the
// rotation's absolute bound cannot decide and the kernel (then MPFR) must: tiles of 16 rows around
// every position whose angle is closest to a multiple of pi/2, from an anchor 7 rows before it, 3
// rows before it and at it; every format; a plain table and a recipe with an attention factor.
TEST(FastEngine, RotatedRowsNextToZerosMatchMpfr) {
  TableSpec yarn;
  yarn.d_model = 128;
  yarn.base = 1e6;
  yarn.rope.type = RopeType::kYarn;
  yarn.rope.factor = 4;
  yarn.rope.original_max_position = 32768;
  TableSpec plain;
  plain.d_model = 512;
  for (const TableSpec& spec : {plain, yarn}) {
    for (const Dtype dtype :
         {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
      const auto fast = make_fast_engine(spec, dtype);
      const auto mpfr = make_mpfr_engine(spec, dtype);
      Mismatches m;
      for (const uint64_t p : fastcheck::half_pi_convergents(spec, 0))
        for (const uint64_t back : {7, 3, 0})
          if (p > back && p - back + 16 <= kMaxPosition)
            fastcheck::compare_tile(*fast, *mpfr, spec, {p - back, 16, 0, 2}, dtype, m);
      EXPECT_GT(m.elements, 500u);
      EXPECT_EQ(m.count, 0u) << name_of(dtype) << "\n" << shown(m);
    }
  }
}

// float16 subnormals from the lowest frequencies of a large base, and tiles that start at any
// pair and end in a partial vector.
TEST(FastEngine, SubnormalsAndPartialVectors) {
  TableSpec spec;
  spec.d_model = 4096;
  spec.base = 5e5;
  const auto fast = make_fast_engine(spec, Dtype::kFloat16);
  const auto mpfr = make_mpfr_engine(spec, Dtype::kFloat16);
  Mismatches m;
  for (int first = 2000; first < 2048; first += 5)
    for (int count = 1; first + count <= 2048 && count < 20; count += 3)
      fastcheck::compare_tile(*fast, *mpfr, spec, {1, 3, first, count}, Dtype::kFloat16, m);
  EXPECT_EQ(m.count, 0u) << shown(m);
  TileValues v;
  fast->evaluate({1, 1, 2047, 1}, v);
  EXPECT_EQ(encode_exact(v.sin_rounded[0], Dtype::kFloat16) >> 10, 0u) << "not subnormal";
}

// Bases beyond ~2^800 make the lowest words of t leave double's range: those pairs go to MPFR,
// and the counts say so (rung 0 fast, rung 1 handed off).
TEST(FastEngine, HandsOffWhatItCannotHoldAndCountsIt) {
  TableSpec spec;
  spec.d_model = 4;
  spec.schedule = Schedule::kT2T;
  spec.base = 0x1p1000;  // w_1 = 2^-1000
  const auto fast = make_fast_engine(spec, Dtype::kFloat64);
  const auto mpfr = make_mpfr_engine(spec, Dtype::kFloat64);
  Mismatches m;
  fastcheck::compare_tile(*fast, *mpfr, spec, {259, 4, 0, 2}, Dtype::kFloat64, m);
  EXPECT_EQ(m.count, 0u) << shown(m);
  EXPECT_EQ(fast->stats().decided_at_rung[0].load(), 4u);  // pair 0, w = 1
  EXPECT_EQ(fast->stats().decided_at_rung[1].load(), 4u);
  EXPECT_EQ(fast->stats().handed_off.load(), 4u);
  EXPECT_EQ(fast->stats().total(), 8u);
}

TEST(FastEngine, LayoutsSelectTheSameValuesAsMpfr) {
  for (Layout layout : {Layout::kHalves, Layout::kRopeCosDup, Layout::kRopeSin}) {
    TableSpec spec;
    spec.d_model = 64;
    spec.base = 5e5;
    spec.schedule = Schedule::kT2T;
    spec.layout = layout;
    spec.start = 123456789;
    const Mismatches m = compare_tables(spec, 40, Dtype::kBFloat16);
    EXPECT_EQ(m.count, 0u) << name_of(layout) << shown(m);
  }
}

TEST(EngineKind, NamesParseAndMakeEngines) {
  for (EngineKind k : {EngineKind::kFast, EngineKind::kMpfr}) {
    EXPECT_EQ(parse_engine_kind(name_of(k)), k);
    TableSpec spec;
    spec.d_model = 8;
    EXPECT_EQ(make_engine(k, spec, Dtype::kFloat32)->name(), name_of(k));
  }
  EXPECT_FALSE(parse_engine_kind("arb"));
}

}  // namespace
}  // namespace pev::oracle
