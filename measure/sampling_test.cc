#include "peverify/measure/sampling.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pev::measure {
namespace {

TEST(LogSpacedBlocks, SpanLoToHiWithoutOverlap) {
  const std::vector<RowBlock> b = log_spaced_blocks(4096, (1u << 24) - 16, 63, 16, true);
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b.front().first, 4096u);
  EXPECT_EQ(b.back().first, (1u << 24) - 16);
  for (size_t i = 1; i < b.size(); ++i) EXPECT_GE(b[i].first, b[i - 1].first + b[i - 1].rows);
  // Every octave between the ends holds a block.
  for (uint64_t octave = 4096; octave < (1u << 23); octave *= 2) {
    bool seen = false;
    for (const RowBlock& x : b) seen = seen || (x.first >= octave && x.first < 2 * octave);
    EXPECT_TRUE(seen) << octave;
  }
}

TEST(LogSpacedBlocks, WithoutLoStartsAfterIt) {
  const std::vector<RowBlock> b = log_spaced_blocks(1000, 1000000, 10, 4, false);
  ASSERT_EQ(b.size(), 10u);
  EXPECT_GT(b.front().first, 1000u);
  EXPECT_EQ(b.back().first, 1000000u);
}

// The study's blocks must not move: its figures are compared bit for bit from run to run. This is
// the formula it used before it shared this sampler.
TEST(LogSpacedBlocks, ReproduceTheStudysPositions) {
  for (const uint64_t head : {uint64_t{8192}, uint64_t{2048}, uint64_t{16384}}) {
    const uint64_t max_position = uint64_t{1} << 24, rows = 4;
    std::vector<uint64_t> expected;
    uint64_t end = head;
    for (int i = 0; i < 40; ++i) {
      const double f = std::pow(static_cast<double>(max_position - rows) / head, (i + 1) / 40.0);
      const uint64_t s = std::min<uint64_t>(max_position - rows + 1,
                                            static_cast<uint64_t>(std::llround(head * f)));
      if (s >= end) {
        expected.push_back(s);
        end = s + rows;
      }
    }
    const std::vector<RowBlock> got = log_spaced_blocks(head, max_position - rows, 40, rows, false);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].first, expected[i]) << i;
  }
}

TEST(LogSpacedBlocks, EmptyWhenThereIsNoRoom) {
  EXPECT_TRUE(log_spaced_blocks(100, 50, 10, 4, true).empty());
  EXPECT_TRUE(log_spaced_blocks(0, 50, 10, 4, true).empty());
}

}  // namespace
}  // namespace pev::measure
