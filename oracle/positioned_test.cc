// The oracle at given position ids agrees bit for bit with whole tables at those positions: rows
// in any order, repeated, and M-RoPE's pairs each at their own stream's position.
#include "peverify/oracle/positioned.h"

#include <gtest/gtest.h>

#include <random>

#include "peverify/oracle/table.h"

namespace pev::oracle {
namespace {

TableSpec rope_spec(int d) {
  TableSpec spec = grid_spec(d, 1e6);
  spec.layout = Layout::kRopeCosDup;
  return spec;
}

// The exact values of pair j at position p, from a one-row table.
TileValues at(const Engine& engine, uint64_t p, int pairs) {
  TileValues v;
  engine.evaluate({p, 1, 0, pairs}, v);
  return v;
}

TEST(Positioned, RowsInAnyOrderRepeatedMatchTheTableAtThosePositions) {
  const TableSpec spec = rope_spec(64);
  const auto engine = make_fast_engine(spec, Dtype::kBFloat16);
  RowPositions p;
  // Packed sequences, a repeat, a gathered tail far out, a left-padded run.
  p.streams = {{0, 1, 2, 3, 0, 1, 2, 2, 131071, 5, 70000, 70001, 70002, 7, 7, 1000000}};
  std::vector<uint64_t> rows(p.rows());
  for (uint64_t i = 0; i < rows.size(); ++i) rows[i] = i;
  TileValues got;
  evaluate_rows(*engine, spec, p, rows.data(), rows.size(), got);
  for (uint64_t i = 0; i < rows.size(); ++i) {
    const TileValues want = at(*engine, p.streams[0][i], 32);
    for (int j = 0; j < 32; ++j) {
      SCOPED_TRACE(testing::Message() << "row " << i << " pair " << j);
      EXPECT_EQ(got.sin_exact[i * 32 + j], want.sin_exact[j]);
      EXPECT_EQ(got.cos_exact[i * 32 + j], want.cos_exact[j]);
      EXPECT_EQ(got.cos_rounded[i * 32 + j], want.cos_rounded[j]);
    }
  }
}

TEST(Positioned, MropePairsTakeTheirStreamsPositionAndTextRowsAreTheDefaultRecipes) {
  for (const bool interleaved : {false, true}) {
    TableSpec spec = rope_spec(128);
    spec.rope.mrope_section =
        interleaved ? std::vector<int>{24, 20, 20} : std::vector<int>{16, 24, 24};
    spec.rope.mrope_interleaved = interleaved;
    const auto engine = make_fast_engine(spec, Dtype::kFloat32);
    RowPositions p;
    // Two text tokens, a 1 x 2 x 3 image grid after them, text again.
    p.streams = {{0, 1, 2, 2, 2, 2, 2, 2, 5, 6},
                 {0, 1, 2, 2, 2, 3, 3, 3, 5, 6},
                 {0, 1, 2, 3, 4, 2, 3, 4, 5, 6}};
    std::vector<uint64_t> rows(p.rows());
    for (uint64_t i = 0; i < rows.size(); ++i) rows[i] = i;
    TileValues got;
    evaluate_rows(*engine, spec, p, rows.data(), rows.size(), got);
    int from_height = 0, from_width = 0;
    for (uint64_t i = 0; i < rows.size(); ++i)
      for (int j = 0; j < 64; ++j) {
        const int s = mrope_stream(spec.rope, j);
        from_height += i == 0 && s == 1;
        from_width += i == 0 && s == 2;
        const TileValues want = at(*engine, p.streams[static_cast<size_t>(s)][i], 64);
        EXPECT_EQ(got.cos_exact[i * 64 + j], want.cos_exact[j]) << "row " << i << " pair " << j;
        EXPECT_EQ(got.sin_exact[i * 64 + j], want.sin_exact[j]) << "row " << i << " pair " << j;
      }
    EXPECT_EQ(from_height, interleaved ? 20 : 24);
    EXPECT_EQ(from_width, interleaved ? 20 : 24);
  }
}

TEST(Positioned, BothEnginesGiveTheSameBitsAtMropePositions) {
  TableSpec spec = rope_spec(64);
  spec.rope.mrope_section = {8, 12, 12};
  RowPositions p;
  p.streams = {
      {0, 9, 9, 9, 9, 20, 100000}, {0, 9, 9, 10, 10, 20, 100000}, {0, 9, 10, 9, 10, 20, 100007}};
  std::vector<uint64_t> rows = {6, 0, 1, 2, 3, 4, 5, 3};
  for (const Dtype target : {Dtype::kFloat32, Dtype::kBFloat16}) {
    TileValues fast, mpfr;
    evaluate_rows(*make_fast_engine(spec, target), spec, p, rows.data(), rows.size(), fast);
    evaluate_rows(*make_mpfr_engine(spec, target), spec, p, rows.data(), rows.size(), mpfr);
    EXPECT_EQ(fast.sin_rounded, mpfr.sin_rounded);
    EXPECT_EQ(fast.cos_rounded, mpfr.cos_rounded);
    EXPECT_EQ(fast.sin_exact, mpfr.sin_exact);
    EXPECT_EQ(fast.cos_exact, mpfr.cos_exact);
  }
}

TEST(Positioned, EncodingsInTheFilesOrderEqualTheConsecutiveTables) {
  TableSpec spec = rope_spec(16);
  spec.layout = Layout::kInterleaved;
  const auto engine = make_fast_engine(spec, Dtype::kFloat16);
  std::mt19937_64 rng(7);
  RowPositions p;
  p.streams.assign(1, {});
  for (int i = 0; i < 700; ++i) p.streams[0].push_back(rng() % 5000);
  std::vector<uint64_t> got(700 * 16);
  rounded_encodings_at(*engine, spec, p, 0, 700, Dtype::kFloat16, got.data(), 2);
  for (uint64_t i = 0; i < 700; i += 37) {
    TableSpec one = spec;
    one.start = p.streams[0][i];
    std::vector<uint64_t> want(16);
    rounded_encodings(*engine, one, 0, 1, Dtype::kFloat16, want.data(), 1);
    for (int c = 0; c < 16; ++c) EXPECT_EQ(got[i * 16 + c], want[c]) << "row " << i;
  }
}

}  // namespace
}  // namespace pev::oracle
