// Every production rotation (core/rotation) against the exact rotation, through the same pass
// `peverify verify-rotary` runs, under the compute it claims: both pair conventions, partial
// rotary, the default, llama3 and yarn recipes, near position 0 and near 131072. And the bugs
// users have hit each fail, with an element named.
#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "peverify/adapters/rotation_entry.h"
#include "peverify/core/convert.h"
#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/core/rotation/rotation_entries.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/positioned.h"
#include "peverify/verify/verify_rotary.h"

namespace pev::crosscheck {
namespace {

constexpr uint64_t kTokens = 24;
constexpr int kHeads = 3;
constexpr uint64_t kFar = 131072 - kTokens;  // the last tokens of a 128k context

struct Case {
  std::string name;
  RotationSpec spec;
  uint64_t start;
  std::optional<RowPositions> ids =
      std::nullopt;  // M-RoPE: each token's three positions, else consecutive
};

TableSpec from_preset(const char* name) {
  const ModelRope m = *model_preset(name);
  TableSpec s = grid_spec(m.rotary_dim, m.base);
  s.rope = m.rope;
  return s;
}

RotationSpec rotation(TableSpec table, int head_dim, PairConvention pairs, uint64_t start) {
  RotationSpec r{table, head_dim, pairs};
  r.table.start = start;
  set_sequence_length(r.table, consecutive_positions(r.table, kTokens));
  return r;
}

// Qwen2.5-VL's positions (get_rope_index): 8 text tokens, a 3 x 4 image grid after them
// (temporal fixed, height and width by row and column), then 4 text tokens from the largest id
// + 1; all from `first`.
RowPositions mrope_ids(uint64_t first) {
  RowPositions p;
  p.streams.assign(3, {});
  const auto token = [&](uint64_t t, uint64_t h, uint64_t w) {
    p.streams[0].push_back(first + t);
    p.streams[1].push_back(first + h);
    p.streams[2].push_back(first + w);
  };
  for (uint64_t i = 0; i < 8; ++i) token(i, i, i);
  for (uint64_t row = 0; row < 3; ++row)
    for (uint64_t col = 0; col < 4; ++col) token(8, 8 + row, 8 + col);
  for (uint64_t i = 12; i < 16; ++i) token(i, i, i);
  return p;
}

Case mrope_case(uint64_t start) {
  RotationSpec r{from_preset("qwen2.5-vl-7b-instruct"), 128, PairConvention::kHalves};
  const RowPositions ids = mrope_ids(start);
  set_sequence_length(r.table, ids);
  return {std::string("Qwen2.5-VL M-RoPE text and image tokens, halves") +
              (start ? " near 131072" : " from 0"),
          r, 0, ids};
}

std::vector<Case> cases() {
  std::vector<Case> c;
  for (const uint64_t start : {uint64_t{0}, kFar}) {
    const std::string at = start ? " near 131072" : " from 0";
    c.push_back({"default, halves" + at,
                 rotation(grid_spec(128, 1e4), 128, PairConvention::kHalves, start), start});
    c.push_back({"default partial 64 of 128, interleaved" + at,
                 rotation(grid_spec(64, 1e4), 128, PairConvention::kInterleaved, start), start});
    c.push_back({"llama3, halves" + at,
                 rotation(from_preset("llama-3.1-8b"), 128, PairConvention::kHalves, start),
                 start});
    c.push_back({"yarn (A != 1), interleaved" + at,
                 rotation(from_preset("qwen2.5-7b-yarn"), 128, PairConvention::kInterleaved, start),
                 start});
    c.push_back(mrope_case(start));
  }
  return c;
}

RowPositions positions_of(const Case& c) {
  return c.ids ? *c.ids : consecutive_positions(c.spec.table, kTokens);
}

// Every token one position further on, in every stream.
RowPositions off_by_one(const Case& c) {
  RowPositions p = positions_of(c);
  for (std::vector<uint64_t>& s : p.streams)
    for (uint64_t& id : s) ++id;
  return p;
}

std::vector<uint64_t> every_token() {
  std::vector<uint64_t> t(kTokens);
  for (uint64_t i = 0; i < kTokens; ++i) t[i] = i;
  return t;
}

verify::VerifyRotaryResult verify(const Case& c, Dtype in_type, const std::vector<double>& x,
                                  Dtype out_type, const std::vector<double>& y,
                                  const std::string& compute,
                                  Claim::Kind claim = Claim::Kind::kModel) {
  const int hd = c.spec.head_dim;
  const auto reader = [hd](const std::vector<double>& v) {
    return [&v, hd](uint64_t first, uint64_t n, double* out) {
      std::copy_n(v.begin() + static_cast<long>(first * hd), n * hd, out);
    };
  };
  const verify::RotaryTensor input{"q", "q", in_type, reader(x)};
  const verify::RotaryTensor output{"rotated", "rotated", out_type, reader(y)};
  verify::VerifyRotaryOptions o;
  o.spec = c.spec;
  o.geometry = verify::TensorGeometry{verify::RotaryAxes::kTokensHeadsDim, 1, kTokens, kHeads, hd};
  o.start = c.start;
  o.positions = c.ids;
  o.positions_name = "M-RoPE ids";
  o.compute = *measure::parse_rotation_compute(compute);
  o.claim = claim;
  o.threads = 1;
  return verify::verify_rotary(input, output, o);
}

// The entry's own output judged under its own claim.
verify::VerifyRotaryResult run(const core::RotationImplementation& e, const Case& c,
                               uint64_t seed) {
  const std::vector<uint64_t> tokens = every_token();
  const std::vector<double> x =
      adapters::random_q(kTokens * kHeads * c.spec.head_dim, e.input, seed);
  const std::vector<double> y =
      adapters::apply_rotation(e, c.spec, positions_of(c), tokens.data(), kTokens, kHeads, x);
  return verify(c, e.input, x, e.output, y, e.compute, e.claim);
}

const core::RotationImplementation& entry(std::string_view name) {
  const core::RotationImplementation* e = core::find_rotation(name);
  if (!e) throw std::logic_error("no rotation " + std::string(name));
  return *e;
}

// One test per entry; a CUDA entry without a device is skipped with the reason.
class EveryEntry : public testing::TestWithParam<const core::RotationImplementation*> {};

TEST_P(EveryEntry, MeetsItsClaimOnEveryCase) {
  const core::RotationImplementation& e = *GetParam();
  if (!e.runs_here()) GTEST_SKIP() << e.unavailable_reason;
  ASSERT_TRUE(measure::parse_rotation_compute(e.compute)) << e.name << ": " << e.compute;
  uint64_t seed = 1;
  for (const Case& c : cases()) {
    const verify::VerifyRotaryResult r = run(e, c, ++seed);
    EXPECT_TRUE(r.holds()) << e.name << " (" << e.compute << "), " << c.name << "\n"
                           << verify::to_text(r);
    EXPECT_EQ(r.elements, kTokens * kHeads * c.spec.head_dim);
  }
}

// A kernel with a host twin gives its twin's bits on every case (the twin itself is judged above,
// without a GPU).
class WithHostTwin : public testing::TestWithParam<const core::RotationImplementation*> {};

TEST_P(WithHostTwin, GivesItsTwinsBits) {
  const core::RotationImplementation& e = *GetParam();
  const core::RotationImplementation& twin = entry(e.host_twin);
  ASSERT_EQ(twin.input, e.input);
  ASSERT_EQ(twin.compute, e.compute);
  if (!e.runs_here()) GTEST_SKIP() << e.unavailable_reason;
  const std::vector<uint64_t> tokens = every_token();
  uint64_t seed = 100;
  for (const Case& c : cases()) {
    const std::vector<double> x =
        adapters::random_q(kTokens * kHeads * c.spec.head_dim, e.input, ++seed);
    const RowPositions p = positions_of(c);
    const std::vector<double> got =
        adapters::apply_rotation(e, c.spec, p, tokens.data(), kTokens, kHeads, x);
    const std::vector<double> want =
        adapters::apply_rotation(twin, c.spec, p, tokens.data(), kTokens, kHeads, x);
    // Bits, not values: +0 and -0 differ.
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(want[i]))
          << e.name << " vs " << twin.name << ", " << c.name << ", element " << i << " (token "
          << i / (kHeads * c.spec.head_dim) << ")";
  }
}

std::vector<const core::RotationImplementation*> entries(bool twins_only) {
  std::vector<const core::RotationImplementation*> v;
  for (const core::RotationImplementation& e : core::rotation_registry())
    if (!twins_only || !e.host_twin.empty()) v.push_back(&e);
  return v;
}

std::string test_name(const testing::TestParamInfo<const core::RotationImplementation*>& i) {
  std::string n = i.param->name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Rotation, EveryEntry, testing::ValuesIn(entries(false)), test_name);
INSTANTIATE_TEST_SUITE_P(Rotation, WithHostTwin, testing::ValuesIn(entries(true)), test_name);
// Without CUDA no entry has a twin: an empty instantiation is expected then.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(WithHostTwin);

// The failing verdict names an element (its position, dimension, value and expected value).
std::string named_failure(const verify::VerifyRotaryResult& r) {
  for (const properties::PropertyVerdict& v : r.verdicts)
    if (!v.holds && !v.worst.empty())
      return v.property + ": position " + std::to_string(v.worst[0].pos) + ", dim " +
             std::to_string(v.worst[0].column);
  return {};
}

// (a, b) of every pair exchanged: applying R(p) between two exchanges is R(-p), sin's sign flipped.
std::vector<double> swap_pairs(const RotationSpec& spec, std::vector<double> v) {
  for (uint64_t row = 0; row < v.size() / spec.head_dim; ++row)
    for (int j = 0; j < spec.table.d_model / 2; ++j) {
      const auto [a, b] = rotated_dims(spec, j);
      std::swap(v[row * spec.head_dim + a], v[row * spec.head_dim + b]);
    }
  return v;
}

// A float32 rotation of the bfloat16-cast cache: what a kernel does that keeps the model's cache
// in bfloat16 but claims float32.
std::vector<double> bf16_cache_rotation(const Case& c, const std::vector<double>& x) {
  TableSpec t = c.spec.table;
  t.layout = Layout::kRopeCosSin;
  const core::GeneratedTable cache = core::generate_at(
      *core::find_implementation("cpu/pow/f32>f32/sleef-u10"), t, positions_of(c));
  const int pairs = t.d_model / 2, hd = c.spec.head_dim;
  const auto bf = [](float v) { return core::f32_from_bf16(core::bf16_from_f32(v)); };
  std::vector<double> y(x);
  for (uint64_t i = 0; i < kTokens; ++i)
    for (int h = 0; h < kHeads; ++h)
      for (int j = 0; j < pairs; ++j) {
        const float cj = bf(cache.floats[i * t.d_model + j]);
        const float sj = bf(cache.floats[i * t.d_model + pairs + j]);
        const auto [a, b] = rotated_dims(c.spec, j);
        const uint64_t o = (i * kHeads + h) * hd;
        const float xa = static_cast<float>(x[o + a]), xb = static_cast<float>(x[o + b]);
        y[o + a] = xa * cj - xb * sj;
        y[o + b] = xb * cj + xa * sj;
      }
  return y;
}

// ... and the verdict's diagnosis names the bug (docs/architecture.md §8.1), or, for one changed
// element, says it is isolated.
TEST(RotationRegistry, EachBugFailsAndNamesAnElementAndItsCause) {
  const core::RotationImplementation& f32 = entry("cpu/rotate/cache-f32/f32");
  const std::vector<uint64_t> tokens = every_token();
  for (const Case& c : cases()) {
    const std::vector<double> x =
        adapters::random_q(kTokens * kHeads * c.spec.head_dim, f32.input, 7);
    const auto apply = [&](const RotationSpec& spec, const RowPositions& p,
                           const std::vector<double>& in) {
      return adapters::apply_rotation(f32, spec, p, tokens.data(), kTokens, kHeads, in);
    };
    const auto fails = [&](const char* bug, const std::vector<double>& y, const char* cause) {
      const verify::VerifyRotaryResult r =
          verify(c, Dtype::kFloat32, x, Dtype::kFloat32, y, "float32");
      EXPECT_FALSE(r.holds()) << bug << ", " << c.name << "\n" << verify::to_text(r);
      EXPECT_NE(named_failure(r), "") << bug << ", " << c.name << "\n" << verify::to_text(r);
      ASSERT_TRUE(r.diagnosis) << bug << ", " << c.name;
      EXPECT_EQ(r.diagnosis->cause, cause) << bug << ", " << c.name << ": " << r.diagnosis->detail;
    };
    fails("sin's sign flipped",
          swap_pairs(c.spec, apply(c.spec, positions_of(c), swap_pairs(c.spec, x))), "sign");
    fails("positions off by one", apply(c.spec, off_by_one(c), x), "positions");
    RotationSpec other = c.spec;
    other.pairs = other_convention(c.spec.pairs);
    fails("the other pair convention", apply(other, positions_of(c), x), "pairing");
    fails("a bfloat16 cache under a float32 claim", bf16_cache_rotation(c, x), "compute");
    if (c.spec.head_dim > c.spec.table.d_model) {
      std::vector<double> y = apply(c.spec, positions_of(c), x);
      const size_t k = kHeads * c.spec.head_dim + c.spec.table.d_model + 3;  // token 1, head 0
      y[k] = std::nextafter(static_cast<float>(y[k]), INFINITY);
      fails("a pass-through dimension changed", y, "isolated");
    }
  }
}

// (x_a, x_b) = (k, h) from the last convergent h/k of cot(pos w_j) with h, k < 2^24: x_a C - x_b S
// cancels to about 2^-48 of its terms, past what double certifies. cot from the oracle's exact
// cos and sin in double (2^-53): its convergents below 2^24 are the true cot's.
std::pair<double, double> cancelling_pair(double cot) {
  double h1 = 1, h2 = 0, k1 = 0, k2 = 1, xa = 1, xb = std::round(cot), r = cot;
  for (int step = 0; step < 60; ++step) {
    const double a = std::floor(r);
    const double h = a * h1 + h2, k = a * k1 + k2;
    if (std::fabs(h) >= 0x1p24 || k >= 0x1p24) break;
    xa = k, xb = h;
    h2 = h1, h1 = h, k2 = k1, k1 = k;
    if (r == a) break;
    r = 1 / (r - a);
  }
  return {xa, xb};
}

// The precise rotation on inputs whose products cancel: every output faithful against the oracle,
// and every one certified (by the __float128 path where double's bound is too wide).
TEST(PreciseRotation, IsFaithfulWhereTheProductsCancelAndCertifiesEveryElement) {
  const core::RotationImplementation& e = entry("cpu/rotate/precise/f32");
  const uint64_t before = core::rotation_internal::precise_rotation_uncertified();
  const uint64_t recomputed = core::rotation_internal::precise_rotation_recomputed();
  int checked = 0;
  for (const Case& c : cases()) {
    if (c.ids) continue;  // one stream: cot at the token's own position
    ++checked;
    const std::vector<uint64_t> tokens = every_token();
    const TableSpec& t = c.spec.table;
    const RowPositions p = positions_of(c);
    oracle::TileValues cs;
    oracle::evaluate_rows(*oracle::make_fast_engine(t, Dtype::kFloat64), t, p, tokens.data(),
                          kTokens, cs);
    const int pairs = t.d_model / 2, hd = c.spec.head_dim;
    std::vector<double> x = adapters::random_q(kTokens * kHeads * hd, Dtype::kFloat32, 11);
    for (uint64_t i = 0; i < kTokens; ++i)
      for (int j = 0; j < pairs; ++j) {
        const double s = cs.sin_exact[i * pairs + j];
        if (s == 0) continue;
        const auto [xa, xb] = cancelling_pair(cs.cos_exact[i * pairs + j] / s);
        const auto [a, b] = rotated_dims(c.spec, j);
        x[(i * kHeads) * hd + a] = xa;  // head 0 of every token
        x[(i * kHeads) * hd + b] = xb;
      }
    const std::vector<double> y =
        adapters::apply_rotation(e, c.spec, p, tokens.data(), kTokens, kHeads, x);
    const verify::VerifyRotaryResult r =
        verify(c, Dtype::kFloat32, x, Dtype::kFloat32, y, e.compute, Claim::Kind::kFaithful);
    EXPECT_TRUE(r.holds()) << c.name << "\n" << verify::to_text(r);
  }
  // Four single-stream cases, from 0 and near 131072: all but the M-RoPE ones.
  EXPECT_EQ(checked, 8) << "cases with one position stream";
  EXPECT_EQ(core::rotation_internal::precise_rotation_uncertified(), before);
  // The cancelling pairs are beyond double's certificate: the __float128 path decided them.
  EXPECT_GE(core::rotation_internal::precise_rotation_recomputed(), recomputed + 100);
}

}  // namespace
}  // namespace pev::crosscheck
