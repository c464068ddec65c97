// Hard cases of the exact rotation: products that cancel to ~2^-48 (float32 inputs) and ~2^-106
// (float64 inputs) of their size, built from continued-fraction convergents of cot(p w_j) in
// Arb; outputs within a hair of a midpoint of the target; an exact tie at position 0; positions
// 0, 2^40 and 2^53; zero vectors. Both engines and Arb must give the same bits.
#include <arb.h>
#include <flint/fmpq.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "hwy/targets.h"
#include "peverify/encoding/format.h"
#include "peverify/oracle/arb_recipe.h"
#include "peverify/oracle/arb_reference.h"
#include "peverify/oracle/correct_rounding.h"
#include "peverify/oracle/mpfr_var.h"
#include "peverify/oracle/recipe_testutil.h"
#include "peverify/oracle/rotation.h"
#include "peverify/oracle/rotation_engines.h"

namespace pev::oracle {
namespace {

bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

// (x_a, x_b) = (k, h), the last convergent h/k of cot(pos w_j) = C/S with |h|, k < 2^bits: then
// x_a C - x_b S = k S (cot - h/k) cancels to about 2^(-2 bits) of its terms.
std::pair<double, double> cancelling_inputs(const TableSpec& spec, uint64_t pos, int pair,
                                            int bits) {
  arb_t w, s, c;
  arb_init(w), arb_init(s), arb_init(c);
  EXPECT_TRUE(arb_frequency(spec, pair, 600, w));
  arb_mul_ui(w, w, pos, 600);
  arb_sin_cos(s, c, w, 600);
  arb_div(c, c, s, 600);
  fmpz_t m, e, a, h, h1, h2, k, k1, k2;
  for (auto* v : {m, e, a, h, h1, h2, k, k1, k2}) fmpz_init(v);
  fmpq_t r;
  fmpq_init(r);
  arf_get_fmpz_2exp(m, e, arb_midref(c));  // cot to ~590 bits as an exact rational m 2^e
  fmpz_one(h);
  fmpq_set_fmpz_frac(r, m, h);
  const slong shift = fmpz_get_si(e);
  if (shift >= 0) {
    fmpq_mul_2exp(r, r, static_cast<ulong>(shift));
  } else {
    fmpq_div_2exp(r, r, static_cast<ulong>(-shift));
  }
  fmpz_one(h1), fmpz_zero(h2), fmpz_zero(k1), fmpz_one(k2);
  double xa = 1, xb = 0;
  for (int step = 0; step < 200; ++step) {
    fmpz_fdiv_q(a, fmpq_numref(r), fmpq_denref(r));
    fmpz_mul(h, a, h1), fmpz_add(h, h, h2);
    fmpz_mul(k, a, k1), fmpz_add(k, k, k2);
    if (fmpz_bits(h) >= static_cast<ulong>(bits) || fmpz_bits(k) >= static_cast<ulong>(bits)) break;
    xa = fmpz_get_d(k), xb = fmpz_get_d(h);
    fmpz_set(h2, h1), fmpz_set(h1, h), fmpz_set(k2, k1), fmpz_set(k1, k);
    fmpq_sub_fmpz(r, r, a);
    if (fmpq_is_zero(r)) break;
    fmpq_inv(r, r);
  }
  for (auto* v : {m, e, a, h, h1, h2, k, k1, k2}) fmpz_clear(v);
  fmpq_clear(r);
  arb_clear(w), arb_clear(s), arb_clear(c);
  return {xa, xb};
}

struct Element {
  uint64_t pos;
  int pair;
  double xa, xb;
};

// Both engines on one head per element (token i at pos[i], only pair `pair` nonzero), and Arb.
// Returns the fast engine's hand-offs.
uint64_t expect_agreement(const RotationSpec& spec, Dtype target,
                          const std::vector<Element>& elements) {
  RowPositions positions;
  positions.streams.assign(1, {});
  std::vector<double> x;
  std::vector<uint64_t> tokens;
  for (const Element& e : elements) {
    tokens.push_back(positions.streams[0].size());
    positions.streams[0].push_back(e.pos);
    std::vector<double> head(static_cast<size_t>(spec.head_dim), 0.0);
    const auto [a, b] = rotated_dims(spec, e.pair);
    head[static_cast<size_t>(a)] = e.xa;
    head[static_cast<size_t>(b)] = e.xb;
    x.insert(x.end(), head.begin(), head.end());
  }
  const RotationOracle fast(spec, target, EngineKind::kFast);
  const RotationOracle mpfr(spec, target, EngineKind::kMpfr);
  RotatedValues f, m;
  fast.rotate(positions, tokens.data(), tokens.size(), 1, x.data(), f);
  mpfr.rotate(positions, tokens.data(), tokens.size(), 1, x.data(), m);
  for (size_t i = 0; i < elements.size(); ++i) {
    const Element& e = elements[i];
    const auto [a, b] = rotated_dims(spec, e.pair);
    const size_t at[2] = {i * spec.head_dim + a, i * spec.head_dim + b};
    const ArbRotated want[2] = {arb_rotation(spec.table, e.pos, e.pair, e.xa, e.xb, target),
                                arb_rotation(spec.table, e.pos, e.pair, e.xb, -e.xa, target)};
    for (int o = 0; o < 2; ++o) {
      SCOPED_TRACE(testing::Message() << "pos " << e.pos << " pair " << e.pair << " out "
                                      << "ab"[o] << std::hexfloat << " x " << e.xa << ", " << e.xb);
      EXPECT_TRUE(same_bits(f.exact[at[o]], want[o].exact))
          << f.exact[at[o]] << " vs " << want[o].exact;
      EXPECT_TRUE(same_bits(f.rounded[at[o]], want[o].rounded)) << f.rounded[at[o]];
      EXPECT_TRUE(same_bits(m.exact[at[o]], want[o].exact)) << m.exact[at[o]];
      EXPECT_TRUE(same_bits(m.rounded[at[o]], want[o].rounded)) << m.rounded[at[o]];
    }
  }
  return fast.stats().handed_off;
}

RotationSpec rotation(TableSpec table, int head_dim) {
  return {std::move(table), head_dim, PairConvention::kHalves};
}

std::vector<RotationSpec> hard_specs() {
  return {rotation(grid_spec(64, 1e4), 64), rotation(recipes::qwen25_yarn(), 128),
          rotation(recipes::llama31(), 128)};
}

constexpr uint64_t kPositions[] = {
    1, 3, 1000, 123457, uint64_t{1} << 40, (uint64_t{1} << 40) - 17, uint64_t{1} << 53};

// Returns how many elements the fast engine handed to MPFR.
uint64_t cancelling_products_agree() {
  uint64_t handed = 0, elements = 0;
  for (const RotationSpec& spec : hard_specs())
    for (const Dtype target : {Dtype::kFloat32, Dtype::kBFloat16, Dtype::kFloat64}) {
      std::vector<Element> cases;
      for (const uint64_t pos : kPositions)
        for (const int pair : {0, 5, spec.table.d_model / 2 - 1})
          for (const int bits : {24, 53}) {
            const auto [xa, xb] = cancelling_inputs(spec.table, pos, pair, bits);
            cases.push_back({pos, pair, xa, xb});
          }
      handed += expect_agreement(spec, target, cases);
      elements += 2 * cases.size();
    }
  std::printf("rotation hard cases: %llu of %llu elements handed off\n",
              static_cast<unsigned long long>(handed), static_cast<unsigned long long>(elements));
  return handed;
}

void outputs_near_midpoints_agree() {
  for (const RotationSpec& spec : hard_specs())
    for (const Dtype target : {Dtype::kFloat32, Dtype::kBFloat16, Dtype::kFloat16}) {
      const double q = std::ldexp(1.0, 1 - traits_of(target).precision);  // ulp of [1, 2)
      std::vector<Element> cases;
      for (const uint64_t pos : kPositions)
        for (const int pair : {1, 7}) {
          const ArbRotated c = arb_rotation(spec.table, pos, pair, 1, 0, Dtype::kFloat64);
          // x_a C a hair from the midpoint 1 + 5.5 q (x_b = 0): x_a = RN(m / C) in float64
          // and in float32, so out_a = m (1 + ~2^-53) and m (1 + ~2^-24).
          const double mid = 1 + 5.5 * q;
          cases.push_back({pos, pair, mid / c.exact, 0});
          cases.push_back({pos, pair, static_cast<float>(mid / c.exact), 0});
        }
      expect_agreement(spec, target, cases);
    }
}

void position_zero_and_zeros_agree() {
  // A = 1.5 exactly: at position 0, 1.5 * 1.0078125 = 1.51171875 = 193.5 * 2^-7 is a bfloat16
  // tie, which goes to the even 194 * 2^-7.
  TableSpec yarn = recipes::qwen25_yarn();
  yarn.rope.attention_factor = 1.5;
  for (const RotationSpec& spec : {rotation(yarn, 128), rotation(recipes::qwen25_yarn(), 128),
                                   rotation(grid_spec(64, 1e4), 64)})
    for (const Dtype target : {Dtype::kBFloat16, Dtype::kFloat32}) {
      const std::vector<Element> cases = {{0, 3, 1.0078125, -2.5},
                                          {0, 4, 0.0, 3.0},
                                          {0, 5, -0.0, -0.0},
                                          {7, 6, 0.0, 0.0},
                                          {uint64_t{1} << 40, 7, -0.0, 0.0},
                                          {0, 8, 0x1p-149, 0x1.fffffep127}};
      expect_agreement(spec, target, cases);
    }
  const RotationOracle oracle(rotation(yarn, 128), Dtype::kBFloat16, EngineKind::kFast);
  RowPositions p;
  p.streams = {{0}};
  std::vector<double> x(128, 0.0);
  x[3] = 1.0078125;
  x[0] = -0.0;
  const uint64_t token = 0;
  RotatedValues out;
  oracle.rotate(p, &token, 1, 1, x.data(), out);
  EXPECT_EQ(out.rounded[3], 1.515625);
  EXPECT_EQ(out.exact[3], 1.51171875);
  EXPECT_TRUE(same_bits(out.exact[0], 0.0));  // an exact zero is +0
}

TEST(RotationHardCases, NearlyCancellingProductsGiveArbsBitsInBothEngines) {
  // The 53-bit convergents cancel past the fast engine's 2^-89: these must reach MPFR.
  EXPECT_GT(cancelling_products_agree(), 0u);
}

TEST(RotationHardCases, OutputsNearMidpointsOfTheTargetGiveArbsBits) {
  outputs_near_midpoints_agree();
}

TEST(RotationHardCases, PositionZeroIsExactTiesRoundToEvenAndZerosArePositive) {
  position_zero_and_zeros_agree();
}

// The fast engine's kernel is compiled once per SIMD target (FMA or Dekker's product, 1 to 8
// lanes, the last lanes of a head one at a time): every target gives the same bits on the hard
// cases.
TEST(RotationHardCases, EveryCompiledSimdTargetGivesTheSameBits) {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    cancelling_products_agree();
    outputs_near_midpoints_agree();
    position_zero_and_zeros_agree();
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(RotationHardCases, RoundDoubleToMatchesMpfrOnEdgesOfEveryFormat) {
  for (const Dtype target : {Dtype::kFloat32, Dtype::kBFloat16, Dtype::kFloat16}) {
    const FormatTraits f = traits_of(target);
    const double q_min = std::ldexp(1.0, f.min_exponent - f.precision + 1);
    const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), 1 - f.min_exponent);
    for (const double v : {q_min / 2, q_min * 0.75, q_min * 1.5, q_min * 2.5, q_min / 3,
                           std::ldexp(1.0, f.min_exponent) * (1 - 0x1p-30), largest,
                           largest * (1 + std::ldexp(1.0, -f.precision)),
                           largest * (1 + std::ldexp(0.999, -f.precision)), 1 + 0x1p-30, 1e300,
                           0x1p-1074, 1.0 / 3}) {
      for (const double s : {v, -v}) {
        MpfrVar m(53);
        mpfr_set_d(m, s, MPFR_RNDN);
        EXPECT_TRUE(same_bits(round_double_to(s, target), round_exact(m, target)))
            << std::hexfloat << s << " -> " << round_double_to(s, target);
      }
    }
  }
}

}  // namespace
}  // namespace pev::oracle
