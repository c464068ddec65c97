// Multi-axis RoPE on tables and rotations built here as Flux builds them (python/tests/
// test_sinusoids.py builds the same in PyTorch): diffusers' float64 cos cache and BFL's float32
// one pass, a cache or a rotation with two axes' ids swapped fails naming the axes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "peverify/encoding/sinusoids/rope_axes.h"
#include "peverify/verify/sinusoids/declarations.h"
#include "peverify/verify/sinusoids/rotary_axes.h"

namespace pev::verify::sinusoids {
namespace {

constexpr int kDims[] = {16, 56, 56};  // Flux's axes
constexpr int kHeadDim = 128;

// Flux's ids: `text` text tokens at (0, 0, 0), then an h x w image grid at (0, row, col). As
// [tokens, 3], the way Flux keeps img_ids.
std::vector<std::vector<double>> flux_ids(int h, int w, int text) {
  std::vector<std::vector<double>> ids(static_cast<size_t>(text), {0, 0, 0});
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) ids.push_back({0.0, double(r), double(c)});
  return ids;
}

Numbers numbers_of(const std::vector<std::vector<double>>& ids) {
  Numbers n{"ids", "float32", {ids.size(), 3}, {}};
  for (const auto& id : ids) n.values.insert(n.values.end(), id.begin(), id.end());
  return n;
}

std::vector<std::vector<double>> swapped_hw(std::vector<std::vector<double>> ids) {
  for (auto& id : ids) std::swap(id[1], id[2]);
  return ids;
}

// cos(id_a * w_j), w_j = theta^(-2j/d_a) of each axis a's d_a/2 pairs, each column twice
// (repeat_interleave): diffusers' get_1d_rotary_pos_embed in float64 (or BFL's math.py rope with
// float32 ids and frequencies), the axes' blocks concatenated.
SinusoidInput cos_cache(const std::vector<std::vector<double>>& ids, bool in_float32) {
  SinusoidInput in{"cos", "built in the test", Dtype::kFloat32, ids.size(), kHeadDim, {}};
  for (const auto& id : ids)
    for (int a = 0; a < 3; ++a)
      for (int j = 0; j < kDims[a] / 2; ++j) {
        float c;
        if (in_float32) {
          const float scale = static_cast<float>(2 * j) / static_cast<float>(kDims[a]);
          const float omega = 1.0f / std::pow(10000.0f, scale);
          c = std::cos(static_cast<float>(id[a]) * omega);
        } else {
          const double omega = 1.0 / std::pow(10000.0, 2.0 * j / kDims[a]);
          c = static_cast<float>(std::cos(id[a] * omega));
        }
        in.values.insert(in.values.end(), 2, c);
      }
  return in;
}

SinusoidVerdict verify_cache(const SinusoidInput& in, const std::vector<std::vector<double>>& ids,
                             const Claim& claim) {
  const RopeAxes axes = parse_rope_axes("flux", std::nullopt);
  const SinusoidDeclaration d =
      axes_declaration(axes, Layout::kRopeCosPairs, numbers_of(ids), in.rows, in.width);
  return verify_sinusoid(in, d, axes_alternatives(axes, Layout::kRopeCosPairs, d), claim, 2);
}

TEST(AxesVerify, FluxCachesFromDiffusersFloat64AndBflFloat32Pass) {
  const auto ids = flux_ids(16, 12, 64);
  const SinusoidVerdict f64 = verify_cache(cos_cache(ids, false), ids, Claim::faithful());
  EXPECT_TRUE(f64.holds()) << to_text(f64);
  EXPECT_EQ(f64.elements, ids.size() * kHeadDim);
  const SinusoidVerdict f32 =
      verify_cache(cos_cache(ids, true), ids, Claim::model(Dtype::kFloat32));
  EXPECT_TRUE(f32.holds()) << to_text(f32);
}

// timm#2541: xy indexing swaps H and W, invisible on square grids (this one is 16 x 12).
TEST(AxesVerify, ACacheWithHeightAndWidthSwappedIsTheAxes) {
  const auto ids = flux_ids(16, 12, 64);
  const SinusoidVerdict v =
      verify_cache(cos_cache(swapped_hw(ids), false), ids, Claim::model(Dtype::kFloat32));
  ASSERT_FALSE(v.holds());
  ASSERT_TRUE(v.diagnosis);
  EXPECT_EQ(v.diagnosis->cause, "axes") << to_text(v);
  EXPECT_NE(v.diagnosis->detail.find("axes 1 and 2's ids swapped"), std::string::npos)
      << v.diagnosis->detail;
  EXPECT_EQ(v.diagnosis->matches,
            std::vector<std::string>{"--positions with its axes in the order 0,2,1"});
}

// q of [1, heads, tokens, 128], rotated as BFL's apply_rope: each pair (2j, 2j+1) by its 2x2
// matrix of float64 cos and sin rounded to float32, products and sum in float32.
struct Rotated {
  std::vector<double> q, out;
};

Rotated bfl_rotation(const std::vector<std::vector<double>>& ids, int heads, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  Rotated r;
  for (int h = 0; h < heads; ++h)
    for (const auto& id : ids) {
      for (int a = 0, dim = 0; a < 3; ++a)
        for (int j = 0; j < kDims[a] / 2; ++j, dim += 2) {
          const double angle = id[a] / std::pow(10000.0, 2.0 * j / kDims[a]);
          const float c = static_cast<float>(std::cos(angle));
          const float s = static_cast<float>(std::sin(angle));
          const float x0 = normal(rng), x1 = normal(rng);
          const float p00 = c * x0, p01 = -s * x1, p10 = s * x0, p11 = c * x1;
          r.q.insert(r.q.end(), {x0, x1});
          r.out.insert(r.out.end(), {p00 + p01, p10 + p11});
        }
    }
  return r;
}

RotaryTensor tensor(const std::string& name, const std::vector<double>& v) {
  return {name, "built in the test", Dtype::kFloat32,
          [&v](uint64_t first, uint64_t n, double* out) {
            std::copy(v.begin() + first * kHeadDim, v.begin() + (first + n) * kHeadDim, out);
          }};
}

SinusoidVerdict verify_rotation(const Rotated& r, const std::vector<std::vector<double>>& ids,
                                int heads) {
  RotaryArguments a;
  a.shape = {1, static_cast<uint64_t>(heads), ids.size(), kHeadDim};
  a.axes = "batch,heads,seq,dim";
  a.pairs = "interleaved";
  a.threads = 2;
  a.flag = "";
  const VerifyRotaryOptions options = resolve_rotary(std::move(a));
  const AxesRotation declared =
      axes_rotation(parse_rope_axes("flux", std::nullopt), options, numbers_of(ids));
  return verify_rotary_axes(tensor("q", r.q), tensor("out", r.out), declared);
}

TEST(AxesVerify, AnHonestRotationPassesAndOneWithTheAxesSwappedIsNamed) {
  const auto ids = flux_ids(16, 12, 64);
  const int heads = 4;
  const Rotated honest = bfl_rotation(ids, heads, 3);
  const SinusoidVerdict v = verify_rotation(honest, ids, heads);
  EXPECT_TRUE(v.holds()) << to_text(v);
  EXPECT_EQ(v.kind, "multi-axis rotation");
  EXPECT_EQ(v.elements, ids.size() * heads * kHeadDim);

  const SinusoidVerdict w = verify_rotation(bfl_rotation(swapped_hw(ids), heads, 3), ids, heads);
  ASSERT_FALSE(w.holds());
  ASSERT_TRUE(w.diagnosis);
  EXPECT_EQ(w.diagnosis->cause, "axes") << to_text(w);
  EXPECT_EQ(w.diagnosis->matches,
            std::vector<std::string>{"--positions with its axes in the order 0,2,1"});
  const auto named =
      std::find_if(w.properties.begin(), w.properties.end(),
                   [](const SinusoidProperty& p) { return p.property == "rotation"; });
  ASSERT_NE(named, w.properties.end());
  const SinusoidProperty& rotation = *named;
  EXPECT_FALSE(rotation.holds);
  ASSERT_FALSE(rotation.worst.empty());
  EXPECT_GE(rotation.worst[0].head, 0);
  EXPECT_LT(rotation.worst[0].head, heads);
  // The text tokens (all ids 0) and the grid's diagonal rotate the same either way.
  EXPECT_GE(rotation.worst[0].row, 64u);
}

}  // namespace
}  // namespace pev::verify::sinusoids
