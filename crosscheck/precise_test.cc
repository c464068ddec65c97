// The precise strategy against the MPFR oracle: faithful (< 1 ulp of the exact value) on whole
// small tables, on sampled blocks up to 2^24, at the continued-fraction positions where sin(pos)
// comes nearest zero; and its tables do not depend on layout, start or how a fill is split.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "hwy/targets.h"
#include "peverify/core/generate.h"
#include "peverify/core/precise/frequencies.h"
#include "peverify/core/precise/plan.h"
#include "peverify/core/precise/precise_fill.h"
#include "peverify/core/registry.h"
#include "peverify/crosscheck/precise_testutil.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/table.h"

namespace pev::core::precise {
namespace {

constexpr uint64_t kFaithfulLimit = uint64_t{1} << 24;
constexpr Dtype kOutputs[] = {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16};

TableSpec make_spec(int d, double base = 1e4, Schedule schedule = Schedule::kPaper,
                    uint64_t start = 0, Layout layout = Layout::kInterleaved) {
  TableSpec spec;
  spec.d_model = d;
  spec.base = base;
  spec.schedule = schedule;
  spec.start = start;
  spec.layout = layout;
  return spec;
}

TEST(PreciseFrequencies, DoubleDoubleIsWithinItsBoundOfMpfr) {
  for (const Schedule schedule : {Schedule::kPaper, Schedule::kT2T}) {
    for (const double base : {1e4, 5e5, 1e6, 65536.0, 1e300}) {
      for (const int d : {4, 64, 512, 4096}) {
        const TableSpec spec = make_spec(d, base, schedule);
        const double worst = worst_frequency_error(spec);
        EXPECT_LE(worst, frequency_error_bound(spec))
            << "d=" << d << " base=" << base << " " << name_of(schedule);
        if (base <= 1e6) {
          EXPECT_LE(worst, 0x1p-105) << "d=" << d << " base=" << base;
        }
      }
    }
  }
}

TEST(PreciseFloat32, IsFaithfulOnAWholeSmallTable) {
  expect_faithful(Dtype::kFloat32, make_spec(64), 1024);
}

TEST(PreciseNarrow, IsFaithfulOnAWholeSmallTable) {
  expect_faithful(Dtype::kFloat16, make_spec(64), 1024);
  expect_faithful(Dtype::kBFloat16, make_spec(64), 1024);
}

// d/2 not a multiple of the vector length takes the generic (double row) path.
TEST(PreciseFloat32, IsFaithfulForOddPairCounts) {
  for (const int d : {2, 6, 10, 34}) expect_faithful(Dtype::kFloat32, make_spec(d), 300);
  expect_faithful(Dtype::kFloat32, make_spec(6, 1e4, Schedule::kT2T, 1'000'000), 200);
}

// float16 and bfloat16 (the vector sinks: rounded from double once, through float rounded to odd,
// or from the float rotation where its bound decides) over a log scale up to 2^24, in the
// layouts of each sink shape.
TEST(PreciseNarrow, IsFaithfulOnSampledBlocksUpTo2To24) {
  constexpr uint64_t kRows = 8;
  for (const Dtype output : {Dtype::kFloat16, Dtype::kBFloat16}) {
    for (const int d : {64, 512}) {
      for (const Layout layout : {Layout::kInterleaved, Layout::kRopeCosSin}) {
        WorstElement worst;
        for (const uint64_t start : sample_starts(kFaithfulLimit, 1, kRows)) {
          const TableSpec spec = make_spec(d, 1e4, Schedule::kPaper, start, layout);
          const WorstElement w = worst_against_oracle(precise_entry(output), spec, kRows);
          EXPECT_LT(w.ulp, 1.0) << describe(precise_entry(output), spec, w);
          worst.merge(w);
        }
        RecordProperty(std::string("max_ulp_") + std::string(short_name(output)) + "_d" +
                           std::to_string(d) + "_" + std::string(name_of(layout)),
                       std::to_string(worst.ulp));
      }
    }
  }
}

// Blocks of 16 rows over a log scale up to 2^24, and across anchor boundaries.
TEST(PreciseFloat32, IsFaithfulOnSampledBlocksUpTo2To24) {
  constexpr uint64_t kRows = 16;
  for (const int d : {64, 512, 4096}) {
    const int per_octave = d == 4096 ? 1 : 2;
    WorstElement worst;
    for (const uint64_t start : sample_starts(kFaithfulLimit, per_octave, kRows)) {
      const TableSpec spec = make_spec(d, 1e4, Schedule::kPaper, start);
      const WorstElement w = worst_against_oracle(precise_entry(Dtype::kFloat32), spec, kRows);
      EXPECT_LT(w.ulp, 1.0) << describe(precise_entry(Dtype::kFloat32), spec, w);
      worst.merge(w);
    }
    RecordProperty("max_ulp_d" + std::to_string(d), std::to_string(worst.ulp));
  }
}

// Convergents p/q of pi: sin(p) is nearest zero for pair 0 (w = 1 in every schedule and base),
// so the rotation's absolute error would show there without the fix-up.
TEST(PreciseFloat32, IsFaithfulAtContinuedFractionPositions) {
  constexpr uint64_t kHard[] = {355, 103993, 104348, 833719, 1146408, 4272943, 5419351};
  for (const uint64_t pos : kHard) {
    for (const double base : {1e4, 5e5, 1e6}) {
      for (const Schedule schedule : {Schedule::kPaper, Schedule::kT2T}) {
        for (const Dtype output : kOutputs) {
          expect_faithful(output, make_spec(64, base, schedule, pos - 2), 5);
        }
      }
    }
  }
}

// The positions below 2^24 where pair k of d = 64 (base 1e4) comes nearest a multiple of pi/2
// (found by a search over every position): rotated rows there fall under kFixupThreshold and are
// recomputed directly, which this exercises.
TEST(PreciseFloat32, IsFaithfulWhereRotationNeedsTheFixup) {
  constexpr std::pair<uint64_t, int> kNearZero[] = {{5419351, 0}, {15764773, 2}, {2976368, 6},
                                                    {4272943, 8}, {6018046, 25}, {84444, 28}};
  const Implementation& impl = precise_entry(Dtype::kFloat32);
  for (const auto& [pos, pair] : kNearZero) {
    ASSERT_NE(pos % kAnchorInterval, 0u);
    const TableSpec spec = make_spec(64, 1e4, Schedule::kPaper, pos);
    const auto engine = oracle::make_mpfr_engine(spec, Dtype::kFloat32);
    const oracle::ExactTable exact = oracle::compute_table(*engine, spec, 1);
    EXPECT_LT(std::fmin(std::fabs(exact.exact[2 * pair]), std::fabs(exact.exact[2 * pair + 1])),
              kFixupThreshold)
        << pos;
    const WorstElement w = worst_against_oracle(impl, spec, 1);
    EXPECT_LT(w.ulp, 1.0) << describe(impl, spec, w);
  }
}

TEST(PreciseFloat32, IsFaithfulForOtherBasesAndT2T) {
  for (const double base : {5e5, 1e6, 65536.0, 1e9}) {
    for (const Schedule schedule : {Schedule::kPaper, Schedule::kT2T}) {
      expect_faithful(Dtype::kFloat32, make_spec(128, base, schedule), 256);
      for (const uint64_t start : {uint64_t{4093}, uint64_t{777'777}, uint64_t{16'777'200}})
        expect_faithful(Dtype::kFloat32, make_spec(128, base, schedule, start), 16);
    }
  }
}

// The sin and cos of (row, pair) as stored, whatever the layout.
struct PairBits {
  std::vector<uint64_t> sin, cos;
};

PairBits pair_bits(const GeneratedTable& t, const TableSpec& spec) {
  const size_t pairs = spec.d_model / 2;
  PairBits out;
  out.sin.assign(t.rows * pairs, ~uint64_t{0});
  out.cos.assign(t.rows * pairs, ~uint64_t{0});
  for (uint64_t r = 0; r < t.rows; ++r) {
    for (int c = 0; c < t.width; ++c) {
      const Column col = column_at(spec, c);
      auto& dst = col.is_sin ? out.sin : out.cos;
      const uint64_t v = t.bits(r * t.width + c);
      uint64_t& slot = dst[r * pairs + col.pair];
      EXPECT_TRUE(slot == ~uint64_t{0} || slot == v) << "duplicated columns differ";
      slot = v;
    }
  }
  return out;
}

TEST(PreciseLayouts, AllLayoutsHoldTheSameValues) {
  constexpr Layout kLayouts[] = {Layout::kInterleaved,  Layout::kHalves,       Layout::kRopeCos,
                                 Layout::kRopeSin,      Layout::kRopeCosDup,   Layout::kRopeSinDup,
                                 Layout::kRopeCosPairs, Layout::kRopeSinPairs, Layout::kRopeCosSin,
                                 Layout::kPolar};
  for (const Dtype output : kOutputs) {
    for (const int d : {6, 64, 512}) {
      const TableSpec reference_spec = make_spec(d, 1e4, Schedule::kPaper, 355 - 100);
      const PairBits reference =
          pair_bits(generate(precise_entry(output), reference_spec, 300), reference_spec);
      for (const Layout layout : kLayouts) {
        const TableSpec spec = make_spec(d, 1e4, Schedule::kPaper, 355 - 100, layout);
        const PairBits got = pair_bits(generate(precise_entry(output), spec, 300), spec);
        const bool has_sin = layout != Layout::kRopeCos && layout != Layout::kRopeCosDup &&
                             layout != Layout::kRopeCosPairs;
        const bool has_cos = layout != Layout::kRopeSin && layout != Layout::kRopeSinDup &&
                             layout != Layout::kRopeSinPairs;
        if (has_sin) {
          EXPECT_EQ(got.sin, reference.sin) << name_of(layout) << " d=" << d;
        }
        if (has_cos) {
          EXPECT_EQ(got.cos, reference.cos) << name_of(layout) << " d=" << d;
        }
      }
    }
  }
}

// Rows depend on the position only: not on the start, the split into fills, the buffer's
// alignment, or whether the fill streamed its stores (tables >= 32 MiB).
TEST(PreciseFloat32, RowsDoNotDependOnStartSplitOrAlignment) {
  const Implementation& impl = precise_entry(Dtype::kFloat32);
  for (const Layout layout : {Layout::kInterleaved, Layout::kHalves, Layout::kRopeSinDup}) {
    const TableSpec spec = make_spec(512, 1e4, Schedule::kPaper, 0, layout);
    const uint64_t rows = 16384 + 37;  // >= 32 MiB interleaved: the streaming path
    const size_t width = table_width(spec);
    const GeneratedTable whole = generate(impl, spec, rows);
    const GeneratedTable split = generate(impl, spec, rows, /*threads=*/2);  // 1024-row blocks
    EXPECT_EQ(whole.floats, split.floats) << name_of(layout);
    for (const uint64_t offset : {uint64_t{1}, uint64_t{63}, uint64_t{64}, uint64_t{1000}}) {
      TableSpec shifted = spec;
      shifted.start = offset;
      // One float past a 64-byte boundary: the unaligned (StoreU) path.
      std::vector<float> buffer((rows - offset) * width + 16 + 1);
      float* out = buffer.data() + 1;
      impl.fill(impl, shifted, rows - offset, out);
      EXPECT_EQ(0, std::memcmp(out, whole.floats.data() + offset * width,
                               (rows - offset) * width * sizeof(float)))
          << name_of(layout) << " start " << offset;
    }
  }
}

// No claim beyond 2^24, but the values stay sane up to 2^53.
TEST(PreciseFloat32, StaysBoundedBeyondItsClaim) {
  const Implementation& impl = precise_entry(Dtype::kFloat32);
  for (const uint64_t start :
       {uint64_t{1} << 32, uint64_t{1} << 40, uint64_t{1} << 45, (uint64_t{1} << 53) - 70}) {
    const TableSpec spec = make_spec(64, 1e4, Schedule::kPaper, start);
    const GeneratedTable t = generate(impl, spec, 70);
    for (size_t i = 0; i < t.size(); ++i) {
      ASSERT_TRUE(std::isfinite(t.floats[i])) << start << " " << i;
      ASSERT_LE(std::fabs(t.floats[i]), 1.0f) << start << " " << i;
    }
    for (uint64_t r = 0; r < t.rows; ++r)
      for (int k = 0; k < 32; ++k) {
        const double s = t.floats[r * 64 + 2 * k], c = t.floats[r * 64 + 2 * k + 1];
        ASSERT_NEAR(s * s + c * c, 1.0, 1e-6) << start + r << " " << k;
      }
  }
  // At 2^32 the bound still gives faithful results for all but |v| < 2^-44.
  const WorstElement w =
      worst_against_oracle(impl, make_spec(64, 1e4, Schedule::kPaper, uint64_t{1} << 32), 70);
  EXPECT_LT(w.ulp, 1.0) << describe(impl, make_spec(64), w);
}

// x86 targets that Highway compiles with FMA (MulAdd fused).
bool target_has_fma(int64_t target) {
  return target == HWY_AVX2 || target == HWY_AVX3 || target == HWY_AVX3_DL;
}

// Every compiled SIMD target, forced in turn: faithful, and bit-identical to the best target
// wherever both have FMA (without it, Horner's steps and the rotation round twice).
class PreciseOnTarget : public testing::TestWithParam<int64_t> {
 protected:
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

TEST_P(PreciseOnTarget, IsFaithfulAndAgreesWithTheBestTarget) {
  const Implementation& impl = precise_entry(Dtype::kFloat32);
  for (const Layout layout : {Layout::kInterleaved, Layout::kHalves}) {
    for (const uint64_t start : {uint64_t{0}, uint64_t{355 - 50}, uint64_t{5419351 - 50}}) {
      const TableSpec spec = make_spec(64, 1e4, Schedule::kPaper, start, layout);
      hwy::SetSupportedTargetsForTest(0);
      const GeneratedTable best = generate(impl, spec, 100);
      hwy::SetSupportedTargetsForTest(GetParam());
      const WorstElement w = worst_against_oracle(impl, spec, 100);
      EXPECT_LT(w.ulp, 1.0) << describe(impl, spec, w);
      const GeneratedTable got = generate(impl, spec, 100);
      if (target_has_fma(GetParam())) {
        EXPECT_EQ(got.floats, best.floats) << name_of(layout);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryTarget, PreciseOnTarget,
                         testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         [](const testing::TestParamInfo<int64_t>& info) {
                           return std::string(hwy::TargetName(info.param));
                         });

}  // namespace
}  // namespace pev::core::precise
