// The read-back on rows built in double with known positions, amplitudes and frequencies: each is
// recovered within its stated precision, the states (zeros, identity, not a rotation) are told
// apart, and the narrower formats' signature is found only in data that carries it.
#include "peverify/verify/readback.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace pev::verify::readback {
namespace {

std::vector<double> paper_frequencies(int pairs, double base) {
  std::vector<double> w;
  for (int j = 0; j < pairs; ++j) w.push_back(std::pow(base, -2.0 * j / (2 * pairs)));
  return w;
}

// Rows at `built` positions with frequencies `w` and amplitude `a`, rounded to float32, declared
// at `declared` positions.
Observations rows_of(const std::vector<uint64_t>& declared, const std::vector<double>& built,
                     const std::vector<double>& w, double a, const std::vector<double>& declared_w,
                     double declared_a = 1) {
  Observations o;
  o.frequencies = declared_w;
  o.amplitude = declared_a;
  for (size_t i = 0; i < declared.size(); ++i) {
    Row r{declared[i], i, {}, {}, 0x1p-23};
    for (const double f : w) {
      r.c.push_back(static_cast<float>(a * std::cos(built[i] * f)));
      r.s.push_back(static_cast<float>(a * std::sin(built[i] * f)));
    }
    o.rows.push_back(std::move(r));
  }
  return o;
}

std::vector<uint64_t> blocks() {  // 16-row blocks on a log scale, as the diagnosis samples
  std::vector<uint64_t> p;
  for (const uint64_t first : {0, 40, 300, 1500, 4000, 8000})
    for (uint64_t r = first; r < first + 16; ++r) p.push_back(r);
  return p;
}

std::vector<double> as_double(const std::vector<uint64_t>& p) { return {p.begin(), p.end()}; }

TEST(ReadBack, HonestRowsReadBackAsDeclared) {
  const std::vector<double> w = paper_frequencies(32, 1e4);
  const std::vector<uint64_t> p = blocks();
  const ReadBack r = read_back(rows_of(p, as_double(p), w, 1, w));
  EXPECT_EQ(r.misplaced_rows(), 0u);
  ASSERT_TRUE(r.amplitude);
  EXPECT_NEAR(*r.amplitude, 1, 1e-6);
  for (size_t i = 0; i < p.size(); ++i) {
    ASSERT_TRUE(r.rows[i].position) << i;
    EXPECT_NEAR(*r.rows[i].position, std::fmod(double(p[i]), r.period), 0.01) << i;
  }
  for (size_t j = 0; j < w.size(); ++j) {
    ASSERT_TRUE(r.pairs[j].frequency) << j;
    EXPECT_NEAR(*r.pairs[j].frequency, w[j], 3 * r.pairs[j].precision + 1e-15) << j;
    EXPECT_LT(r.pairs[j].precision, 1e-8 * w[0]) << j;
  }
  EXPECT_EQ(differing_pairs(r, w), "");
}

TEST(ReadBack, ADifferentBaseShowsInEveryPairButTheFirst) {
  const std::vector<double> declared = paper_frequencies(32, 1e4),
                            built = paper_frequencies(32, 5e5);
  const std::vector<uint64_t> p = blocks();
  const ReadBack r = read_back(rows_of(p, as_double(p), built, 1, declared));
  for (size_t j = 0; j < built.size(); ++j) {
    ASSERT_TRUE(r.pairs[j].frequency) << j;
    EXPECT_NEAR(*r.pairs[j].frequency / built[j], 1, 1e-6) << j;
  }
  EXPECT_EQ(differing_pairs(r, declared).rfind("pairs 1..31 (31 of 32)", 0), 0u)
      << differing_pairs(r, declared);
}

TEST(ReadBack, PositionsAndAmplitudeOfWrongRows) {
  const std::vector<double> w = paper_frequencies(32, 1e4);
  const std::vector<uint64_t> p = blocks();
  std::vector<double> at(p.size(), 7.0);  // every row at position 7
  const ReadBack r = read_back(rows_of(p, at, w, 1.25, w));
  ASSERT_TRUE(r.amplitude);
  EXPECT_NEAR(*r.amplitude, 1.25, 1e-6);
  for (const RowReading& row : r.rows) {
    ASSERT_TRUE(row.position);
    EXPECT_NEAR(*row.position, 7, 0.01);
  }
}

TEST(ReadBack, ZerosIdentityAndNotARotation) {
  const std::vector<double> w = paper_frequencies(8, 1e4);
  Observations o = rows_of({0, 5, 9}, {0, 5, 9}, w, 1, w);
  std::fill(o.rows[1].c.begin(), o.rows[1].c.end(), 0.0);
  std::fill(o.rows[1].s.begin(), o.rows[1].s.end(), 0.0);
  o.rows[2].c[3] *= 2;  // one pair's norm doubled
  const ReadBack r = read_back(o);
  EXPECT_EQ(r.rows[0].state, RowState::kIdentity);
  EXPECT_EQ(r.rows[1].state, RowState::kZeros);
  EXPECT_EQ(r.rows[2].state, RowState::kNotRotation);
}

TEST(ReadBack, CosAloneSaysWhatItCannotReadBack) {
  const std::vector<double> w = paper_frequencies(8, 1e4);
  Observations o = rows_of({0, 5, 9, 12}, {0, 5, 9, 12}, w, 1, w);
  for (Row& row : o.rows) row.s.clear();
  const ReadBack r = read_back(o);
  ASSERT_EQ(r.limits.size(), 1u);
  EXPECT_NE(r.limits[0].find("sign of sin"), std::string::npos);
  EXPECT_FALSE(r.amplitude);
}

// bfloat16 angles carry bfloat16's signature; a float32 table with another base does not, though
// its errors are as large.
TEST(ReadBack, TheSignatureOfANarrowerComputation) {
  const std::vector<double> w = paper_frequencies(32, 1e4);
  const std::vector<uint64_t> p = blocks();
  Observations narrow = rows_of(p, as_double(p), w, 1, w);
  const auto bf16 = [](double x) {
    if (x == 0) return x;
    const int e = std::ilogb(x) - 7;
    return std::ldexp(std::nearbyint(std::ldexp(x, -e)), e);
  };
  for (size_t i = 0; i < p.size(); ++i)
    for (size_t j = 0; j < w.size(); ++j) {
      narrow.rows[i].c[j] = bf16(narrow.rows[i].c[j]);
      narrow.rows[i].s[j] = bf16(narrow.rows[i].s[j]);
    }
  EXPECT_TRUE(has_signature_of(narrow, read_back(narrow), Dtype::kBFloat16));
  const Observations slip = rows_of(p, as_double(p), paper_frequencies(32, 1.2e4), 1, w);
  EXPECT_FALSE(has_signature_of(slip, read_back(slip), Dtype::kBFloat16));
}

}  // namespace
}  // namespace pev::verify::readback
