// verify's pass over timestep embeddings and ALiBi slopes, on tables built here the way the named
// code builds them (python/tests/test_sinusoids.py builds the same ones in PyTorch): honest ones
// pass, the published bugs fail and the diagnosis names their cause, with the flags that match.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "peverify/encoding/sinusoids/alibi.h"
#include "peverify/encoding/sinusoids/timestep.h"
#include "peverify/verify/sinusoids/alibi_verify.h"
#include "peverify/verify/sinusoids/declarations.h"

namespace pev::verify::sinusoids {
namespace {

constexpr int kSteps = 1000;

Numbers steps() {
  Numbers t{"t", "int64", {kSteps}, {}};
  for (int i = 0; i < kSteps; ++i) t.values.push_back(i);
  return t;
}

SinusoidInput input(int width, std::vector<float> values) {
  SinusoidInput in{"table",
                   "built in the test",
                   Dtype::kFloat32,
                   values.size() / width,
                   static_cast<uint64_t>(width),
                   {}};
  in.values.assign(values.begin(), values.end());
  return in;
}

// diffusers' get_timestep_embedding in float32 (src/diffusers/models/embeddings.py): exponent =
// -ln(P) * arange(h) / (h - shift), args = t * exp(exponent), [sin | cos], flipped to [cos | sin],
// a zero pad column for an odd width. With shift 0 and flip it is ADM's timestep_embedding.
SinusoidInput diffusers_embedding(int dim, bool flip, int shift) {
  const int half = dim / 2;
  const float minus_log = static_cast<float>(-std::log(10000.0));  // a float32 tensor's scalar
  std::vector<float> freqs(half);
  for (int k = 0; k < half; ++k)
    freqs[k] = std::exp(minus_log * static_cast<float>(k) / static_cast<float>(half - shift));
  std::vector<float> table;
  for (int t = 0; t < kSteps; ++t) {
    std::vector<float> s(half), c(half);
    for (int k = 0; k < half; ++k) {
      const float arg = static_cast<float>(t) * freqs[k];
      s[k] = std::sin(arg);
      c[k] = std::cos(arg);
    }
    table.insert(table.end(), flip ? c.begin() : s.begin(), flip ? c.end() : s.end());
    table.insert(table.end(), flip ? s.begin() : c.begin(), flip ? s.end() : c.end());
    if (dim % 2) table.push_back(0.0f);
  }
  return input(dim, std::move(table));
}

SinusoidVerdict verify_timesteps(const SinusoidInput& in, const std::string& recipe) {
  const TimestepRecipe r = parse_timestep_recipe(recipe);
  const int width = static_cast<int>(in.width);
  return verify_sinusoid(in, timestep_declaration(r, width, steps(), in.rows),
                         timestep_alternatives(r, width, steps(), in.rows),
                         Claim::model(Dtype::kFloat32), 2);
}

const SinusoidProperty& property(const SinusoidVerdict& v, const std::string& name) {
  for (const SinusoidProperty& p : v.properties)
    if (p.property == name) return p;
  throw std::logic_error("no property " + name);
}

TEST(TimestepVerify, HonestDiffusersAndAdmEmbeddingsPass) {
  for (const int dim : {320, 321}) {
    const SinusoidVerdict ddpm = verify_timesteps(diffusers_embedding(dim, false, 1), "diffusers");
    EXPECT_TRUE(ddpm.holds()) << to_text(ddpm);
    EXPECT_EQ(ddpm.elements, uint64_t{kSteps} * dim);
    // ADM, LDM, SDXL and DiT: [cos | sin] over half, as diffusers with flip and shift 0.
    const SinusoidVerdict adm = verify_timesteps(diffusers_embedding(dim, true, 0), "adm");
    EXPECT_TRUE(adm.holds()) << to_text(adm);
    EXPECT_EQ(adm.elements, uint64_t{kSteps} * dim);
  }
}

// kohya-ss/sd-scripts#1187: the U-Net's default shift 1 where SDXL's config says 0.
TEST(TimestepVerify, SdxlBuiltWithShift1WhereAdmIsDeclaredIsTheRecipe) {
  const SinusoidInput in = diffusers_embedding(320, true, 1);
  const SinusoidVerdict v = verify_timesteps(in, "adm");
  ASSERT_FALSE(v.holds());
  const SinusoidProperty& oracle = property(v, "oracle");
  ASSERT_FALSE(oracle.holds);
  ASSERT_FALSE(oracle.worst.empty());
  const SinusoidFinding& worst = oracle.worst[0];
  EXPECT_GT(worst.error, worst.allowed);
  EXPECT_EQ(worst.got, in.values[worst.row * in.width + worst.column]);
  ASSERT_EQ(worst.positions.size(), 1u);
  EXPECT_EQ(worst.positions[0], static_cast<double>(worst.row));  // timestep t = row
  ASSERT_TRUE(v.diagnosis);
  EXPECT_EQ(v.diagnosis->cause, "recipe") << to_text(v);
  EXPECT_NE(v.diagnosis->detail.find("downscale_freq_shift 1"), std::string::npos)
      << v.diagnosis->detail;
  EXPECT_EQ(v.diagnosis->matches,
            std::vector<std::string>{R"(--timestep-recipe '{"preset": "adm", )"
                                     R"("downscale_freq_shift": 1}')"})
      << to_text(v);
}

// Column 0 is cos(t): at t = 600 the model budget is 32 u (1 + 600) = 1.1e-3, the column's own
// errors ~3e-5. 5e-4 more is inside the budget but stands out of its column.
TEST(TimestepVerify, OneCorruptedElementIsIsolatedAndNamed) {
  SinusoidInput in = diffusers_embedding(320, true, 0);
  in.values[600 * in.width + 0] =
      static_cast<float>(in.values[600 * in.width + 0]) + static_cast<float>(5e-4);
  const SinusoidVerdict v = verify_timesteps(in, "adm");
  ASSERT_FALSE(v.holds());
  EXPECT_TRUE(property(v, "oracle").holds) << "the corruption is inside the worst-case budget";
  const SinusoidProperty& consistent = property(v, "consistent");
  ASSERT_FALSE(consistent.holds);
  ASSERT_FALSE(consistent.worst.empty());
  EXPECT_EQ(consistent.worst[0].row, 600u);
  EXPECT_EQ(consistent.worst[0].column, 0);
  EXPECT_EQ(consistent.failed, 1u);
  ASSERT_TRUE(v.diagnosis);
  EXPECT_EQ(v.diagnosis->cause, "isolated") << to_text(v);
  EXPECT_NE(v.diagnosis->detail.find("row 600 column 0"), std::string::npos) << v.diagnosis->detail;
}

// fairseq's get_slopes in double (ofirpress/attention_with_linear_biases).
std::vector<double> fairseq_slopes(int n) {
  const auto power_of_2 = [](int m) {
    const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(m) - 3)));
    std::vector<double> s;
    for (int i = 0; i < m; ++i) s.push_back(start * std::pow(start, i));
    return s;
  };
  if (std::exp2(std::floor(std::log2(n))) == n) return power_of_2(n);
  const int c = static_cast<int>(std::exp2(std::floor(std::log2(n))));
  std::vector<double> s = power_of_2(c);
  const std::vector<double> more = fairseq_slopes(2 * c);
  for (int i = 0; i < n - c; ++i) s.push_back(more[2 * i]);
  return s;
}

SinusoidInput slopes_input(const std::vector<double>& slopes) {
  std::vector<float> f(slopes.begin(), slopes.end());
  SinusoidInput in = input(static_cast<int>(f.size()), f);
  in.name = "slopes";
  return in;
}

TEST(AlibiVerify, TheAuthorsSlopesPass) {
  for (const int heads : {8, 12, 16, 40, 71}) {
    const std::vector<double> exact = fairseq_slopes(heads);
    ASSERT_EQ(exact.size(), static_cast<size_t>(heads));
    const SinusoidVerdict faithful = verify_alibi(slopes_input(exact), 8, Claim::faithful());
    EXPECT_TRUE(faithful.holds()) << heads << " heads\n" << to_text(faithful);
    EXPECT_EQ(faithful.elements, static_cast<uint64_t>(heads));
    const SinusoidVerdict model =
        verify_alibi(slopes_input(exact), 8, Claim::model(Dtype::kFloat32));
    EXPECT_TRUE(model.holds()) << heads << " heads\n" << to_text(model);
  }
}

// mlx#3071: 2^(-8 (h + 1) / n) for every n, right only for powers of two.
TEST(AlibiVerify, GeometricSlopesForTwelveHeadsAreTheRecipe) {
  std::vector<double> geometric;
  for (int h = 0; h < 12; ++h) geometric.push_back(std::pow(2.0, -8.0 * (h + 1) / 12));
  const SinusoidVerdict v = verify_alibi(slopes_input(geometric), 8, Claim::model(Dtype::kFloat32));
  ASSERT_FALSE(v.holds());
  ASSERT_TRUE(v.diagnosis);
  EXPECT_EQ(v.diagnosis->cause, "recipe") << to_text(v);
  EXPECT_NE(v.diagnosis->detail.find("mlx#3071"), std::string::npos) << v.diagnosis->detail;
  // The authors' first 8 slopes are 8 heads' (2^-1 .. 2^-8), then 16 heads' odd ones: no head's
  // exponent 2 (h + 1) / 3 is its.
  EXPECT_EQ(property(v, "oracle").failed, 12u);
  // For 16 heads the same rule is the authors'.
  std::vector<double> sixteen;
  for (int h = 0; h < 16; ++h) sixteen.push_back(std::pow(2.0, -8.0 * (h + 1) / 16));
  EXPECT_TRUE(verify_alibi(slopes_input(sixteen), 8, Claim::strict()).holds());
}

}  // namespace
}  // namespace pev::verify::sinusoids
