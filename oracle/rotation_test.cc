// The exact rotation (oracle/rotation.h): the fast and MPFR engines give the same bits on random
// inputs and on hard cases (near-cancelling products, outputs near a midpoint of the target, ties
// at position 0, positions to 2^53, zeros, pass-through dims), Arb (arb_rotation, no code shared
// with either engine) gives them too, and the fast engine hands few elements to MPFR.
#include "peverify/oracle/rotation.h"

#include <arb.h>
#include <flint/fmpq.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "peverify/oracle/arb_recipe.h"
#include "peverify/oracle/arb_reference.h"
#include "peverify/oracle/correct_rounding.h"
#include "peverify/oracle/mpfr_var.h"
#include "peverify/oracle/recipe_testutil.h"
#include "peverify/oracle/rotation_engines.h"
#include "peverify/oracle/test_rng.h"

namespace pev::oracle {
namespace {

constexpr Dtype kTargets[] = {Dtype::kFloat32, Dtype::kBFloat16, Dtype::kFloat16, Dtype::kFloat64};

struct Named {
  std::string name;
  RotationSpec spec;
};

RotationSpec rotation(TableSpec table, int head_dim, PairConvention pairs) {
  return {std::move(table), head_dim, pairs};
}

// Default, llama3, yarn with an irrational attention factor, M-RoPE with three streams; some
// with pass-through dims, both pair conventions.
std::vector<Named> specs() {
  TableSpec mrope = grid_spec(64, 1e6);
  mrope.rope.mrope_section = {8, 12, 12};
  return {{"default", rotation(grid_spec(64, 1e4), 80, PairConvention::kHalves)},
          {"llama3", rotation(recipes::llama31(), 128, PairConvention::kInterleaved)},
          {"yarn", rotation(recipes::qwen25_yarn(), 160, PairConvention::kHalves)},
          {"mrope", rotation(mrope, 64, PairConvention::kInterleaved)}};
}

// A random float32 value (sign, 24-bit significand, exponent in [-8, 8]), or bfloat16's.
double random_input(TestRng& rng, bool bfloat16) {
  const double m = 1 + static_cast<double>(rng.below(uint64_t{1} << 23)) * 0x1p-23;
  const double v = std::ldexp(rng.below(2) ? -m : m, static_cast<int>(rng.below(17)) - 8);
  return bfloat16 ? round_double_to(v, Dtype::kBFloat16) : v;
}

struct Batch {
  RowPositions positions;
  std::vector<uint64_t> tokens;
  int heads = 2;
  std::vector<double> x;
};

// Positions from 0 to 2^40 (every region of recipes::position_in; three streams for M-RoPE),
// the tokens in a shuffled order, one head of one token all zeros.
Batch random_batch(const RotationSpec& spec, uint64_t seed, int n, bool bfloat16) {
  TestRng rng(seed);
  Batch b;
  b.positions.streams.assign(static_cast<size_t>(position_streams(spec.table.rope)), {});
  for (int i = 0; i < n; ++i)
    for (auto& stream : b.positions.streams)
      stream.push_back(i == 0 ? 0 : recipes::position_in(rng, i % recipes::kPositionRegions));
  for (int i = 0; i < n; ++i) b.tokens.push_back(static_cast<uint64_t>((i * 7) % n));
  b.x.resize(static_cast<size_t>(n) * b.heads * spec.head_dim);
  for (double& v : b.x) v = random_input(rng, bfloat16);
  for (int k = 0; k < spec.head_dim; ++k) b.x[static_cast<size_t>(spec.head_dim + k)] = 0;
  return b;
}

bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

struct BothEngines {
  RotatedValues fast, mpfr;
  uint64_t rotated = 0, handed_off = 0;
};

// Both engines on a batch; every element must agree bit for bit.
BothEngines run_both(const RotationSpec& spec, Dtype target, const Batch& b) {
  BothEngines r;
  const RotationOracle fast(spec, target, EngineKind::kFast);
  const RotationOracle mpfr(spec, target, EngineKind::kMpfr);
  fast.rotate(b.positions, b.tokens.data(), b.tokens.size(), b.heads, b.x.data(), r.fast);
  mpfr.rotate(b.positions, b.tokens.data(), b.tokens.size(), b.heads, b.x.data(), r.mpfr);
  for (size_t i = 0; i < b.x.size(); ++i) {
    EXPECT_TRUE(same_bits(r.fast.exact[i], r.mpfr.exact[i]))
        << "element " << i << ": " << r.fast.exact[i] << " vs " << r.mpfr.exact[i];
    EXPECT_TRUE(same_bits(r.fast.rounded[i], r.mpfr.rounded[i]))
        << "element " << i << ": " << r.fast.rounded[i] << " vs " << r.mpfr.rounded[i];
  }
  r.rotated = fast.stats().rotated;
  r.handed_off = fast.stats().handed_off;
  return r;
}

// Arb's value of every rotated element of token t (every `step`-th), and pass-through dims
// equal to the input, rounded once by MPFR.
void expect_arb_agrees(const RotationSpec& spec, Dtype target, const Batch& b,
                       const RotatedValues& got, int step = 1) {
  const int d = spec.table.d_model, hd = spec.head_dim;
  int seen = 0, compared = 0;
  for (size_t t = 0; t < b.tokens.size(); ++t)
    for (int h = 0; h < b.heads; ++h) {
      const size_t base = (t * static_cast<size_t>(b.heads) + static_cast<size_t>(h)) * hd;
      for (int j = 0; j < d / 2; ++j) {
        if (seen++ % step) continue;
        ++compared;
        const auto [a, bb] = rotated_dims(spec, j);
        const uint64_t pos = b.positions.of_pair(spec.table, b.tokens[t], j);
        const double xa = b.x[base + a], xb = b.x[base + bb];
        const ArbRotated ra = arb_rotation(spec.table, pos, j, xa, xb, target);
        const ArbRotated rb = arb_rotation(spec.table, pos, j, xb, -xa, target);
        SCOPED_TRACE(testing::Message()
                     << "token " << t << " head " << h << " pair " << j << " pos " << pos
                     << std::hexfloat << " x " << xa << ", " << xb);
        EXPECT_TRUE(same_bits(got.exact[base + a], ra.exact)) << got.exact[base + a];
        EXPECT_TRUE(same_bits(got.rounded[base + a], ra.rounded)) << got.rounded[base + a];
        EXPECT_TRUE(same_bits(got.exact[base + bb], rb.exact)) << got.exact[base + bb];
        EXPECT_TRUE(same_bits(got.rounded[base + bb], rb.rounded)) << got.rounded[base + bb];
      }
      for (int k = d; k < hd; ++k) {
        const double v = b.x[base + k];
        EXPECT_TRUE(same_bits(got.exact[base + k], v));
        MpfrVar m(53);
        mpfr_set_d(m, v, MPFR_RNDN);
        EXPECT_TRUE(v == 0 || same_bits(got.rounded[base + k], round_exact(m, target)));
      }
    }
  // Every step-th pair of every head of every token: the first of each group of `step`.
  const int pairs = static_cast<int>(b.tokens.size()) * b.heads * (d / 2);
  EXPECT_GT(pairs, 0) << "an empty batch";
  EXPECT_EQ(compared, (pairs + step - 1) / step) << "pairs compared with Arb";
}

TEST(Rotation, FastAndMpfrEnginesGiveTheSameBitsOnRandomInputsAndArbAgrees) {
  uint64_t rotated = 0, handed = 0;
  for (const Named& s : specs())
    for (const Dtype target : kTargets)
      for (const bool bf16 : {false, true}) {
        SCOPED_TRACE(s.name + " " + std::string(bf16 ? "bfloat16" : "float32") +
                     " inputs, target " + std::to_string(static_cast<int>(target)));
        const Batch b = random_batch(s.spec, 17 + rotated, 24, bf16);
        const BothEngines r = run_both(s.spec, target, b);
        if (!bf16) expect_arb_agrees(s.spec, target, b, r.fast, 13);
        rotated += r.rotated;
        handed += r.handed_off;
      }
  // Only near-cancellation or a midpoint hands off: ~2^-36 of random elements.
  EXPECT_LE(handed * 10000, rotated) << handed << " of " << rotated;
  RecordProperty("handed_off", std::to_string(handed) + " of " + std::to_string(rotated));
  std::printf("rotation: %llu of %llu random elements handed off\n",
              static_cast<unsigned long long>(handed), static_cast<unsigned long long>(rotated));
}

// The output convention moves where pair j's two outputs are written, nothing else: for every
// input and output convention (DeepSeek's interleaved in, halves out among them), the element at
// output_dims(j) is the one the input's own convention writes at rotated_dims(j), in both
// engines; pass-through dims stay where they are.
TEST(Rotation, TheOutputConventionPlacesEachPairsOutputsAndChangesNoValue) {
  for (const PairConvention in : {PairConvention::kHalves, PairConvention::kInterleaved})
    for (const PairConvention out : {PairConvention::kHalves, PairConvention::kInterleaved}) {
      SCOPED_TRACE(std::string(name_of(in)) + " in, " + std::string(name_of(out)) + " out");
      const RotationSpec same = rotation(recipes::qwen25_yarn(), 160, in);
      RotationSpec moved = same;
      moved.output_pairs = out;
      const Batch b = random_batch(same, 35, 24, false);
      const BothEngines want = run_both(same, Dtype::kFloat32, b);
      const BothEngines got = run_both(moved, Dtype::kFloat32, b);
      for (size_t row = 0; row < b.x.size() / 160; ++row) {
        const size_t at = row * 160;
        for (int j = 0; j < 64; ++j) {
          const auto [a, bb] = rotated_dims(same, j);
          const auto [oa, ob] = output_dims(moved, j);
          EXPECT_TRUE(same_bits(got.fast.exact[at + oa], want.fast.exact[at + a])) << row << j;
          EXPECT_TRUE(same_bits(got.fast.rounded[at + ob], want.fast.rounded[at + bb])) << j;
        }
        for (int k = 128; k < 160; ++k)
          EXPECT_TRUE(same_bits(got.fast.exact[at + k], b.x[at + k])) << k;
      }
    }
}

// Proportional RoPE: the pairs past int(p d // 2) have w = 0, so their outputs are the inputs,
// exactly, at every position, and neither engine hands them to MPFR's ladder.
TEST(Rotation, ProportionalsResidualPairsPassTheirInputsExactly) {
  TableSpec table = grid_spec(128, 1e6);
  table.rope.type = RopeType::kProportional;
  table.rope.partial_rotary_factor = 0.25;  // 16 of 64 pairs turn
  const RotationSpec spec = rotation(table, 128, PairConvention::kHalves);
  const Batch b = random_batch(spec, 36, 32, true);
  const BothEngines r = run_both(spec, Dtype::kBFloat16, b);
  // 32 tokens of 2 heads, each with 96 dims (48 pairs) that do not turn.
  ASSERT_EQ(b.x.size(), 32u * b.heads * 128);
  int passed = 0;
  for (size_t row = 0; row < b.x.size() / 128; ++row)
    for (int k = 0; k < 128; ++k) {
      if (k % 64 < 16) continue;
      const double x = b.x[row * 128 + k];
      EXPECT_TRUE(same_bits(r.fast.exact[row * 128 + k], x == 0 ? 0.0 : x)) << row << " " << k;
      ++passed;
    }
  EXPECT_EQ(passed, 32 * b.heads * 96);
  expect_arb_agrees(spec, Dtype::kBFloat16, b, r.fast, 7);
}

}  // namespace
}  // namespace pev::oracle
