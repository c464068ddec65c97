// verify's pass over the other sinusoidal tables (docs/features.md §16): the exact table passes the
// strictest claim, and each kind of fault fails the property that names it, with the element.
#include <gtest/gtest.h>

#include "peverify/oracle/sinusoid.h"
#include "peverify/verify/sinusoids/alibi_verify.h"
#include "peverify/verify/sinusoids/declarations.h"

namespace pev::verify::sinusoids {
namespace {

Numbers steps(int n) {
  Numbers t{"t", "int64", {static_cast<uint64_t>(n)}, {}};
  for (int i = 0; i < n; ++i) t.values.push_back(i * 7.5);
  return t;
}

// The correctly rounded float32 table of a declaration.
SinusoidInput exact_table(const SinusoidDeclaration& d) {
  const oracle::SinusoidOracle oracle(d.table);
  SinusoidInput in{
      "t.npy", "test", Dtype::kFloat32, d.positions.rows(), static_cast<uint64_t>(d.table.width()),
      {}};
  for (uint64_t r = 0; r < in.rows; ++r)
    for (const SinusoidColumn& c : d.table.columns) {
      if (c.wave == Wave::kZero) {
        in.values.push_back(0);
        continue;
      }
      const oracle::SinCos v = oracle.evaluate(d.positions.axes[c.axis][r], c.frequency);
      in.values.push_back(c.wave == Wave::kSin ? v.sin_in(Dtype::kFloat32)
                                               : v.cos_in(Dtype::kFloat32));
    }
  return in;
}

const SinusoidProperty& property(const SinusoidVerdict& v, const std::string& name) {
  for (const SinusoidProperty& p : v.properties)
    if (p.property == name) return p;
  throw std::logic_error("no property " + name);
}

TEST(SinusoidVerify, TheExactTimestepTablePassesStrictAndAFlippedOneIsNamed) {
  const TimestepRecipe adm = parse_timestep_recipe("adm");
  const SinusoidDeclaration d = timestep_declaration(adm, 65, steps(300), 300);
  SinusoidInput in = exact_table(d);
  const SinusoidVerdict v = verify_sinusoid(in, d, {}, Claim::strict(), 2);
  EXPECT_TRUE(v.holds()) << to_text(v);
  EXPECT_EQ(v.elements, 300u * 65);

  TimestepRecipe flipped = adm;
  flipped.flip_sin_to_cos = false;
  const SinusoidInput wrong = exact_table(timestep_declaration(flipped, 65, steps(300), 300));
  const SinusoidVerdict f = verify_sinusoid(
      wrong, d, timestep_alternatives(adm, 65, steps(300), 300), Claim::strict(), 2);
  ASSERT_FALSE(f.holds());
  ASSERT_TRUE(f.diagnosis);
  EXPECT_EQ(f.diagnosis->cause, "layout") << to_text(f);
}

TEST(SinusoidVerify, EachFaultFailsItsPropertyNamingTheElement) {
  const RopeAxes axes = parse_rope_axes("8,8", 100.0);
  Numbers ids{"ids", "float32", {2, 64}, {}};
  for (int r = 0; r < 64; ++r) ids.values.push_back(r / 8);
  for (int r = 0; r < 64; ++r) ids.values.push_back(r % 8 - 3.5);  // centred, fractional
  const SinusoidDeclaration d = axes_declaration(axes, Layout::kRopeCosPairs, ids, 64, 16);
  SinusoidInput in = exact_table(d);
  EXPECT_TRUE(verify_sinusoid(in, d, {}, Claim::faithful(), 1).holds());

  SinusoidInput nan = in;
  nan.values[5 * 16 + 3] = NAN;
  const SinusoidVerdict v = verify_sinusoid(nan, d, {}, Claim::faithful(), 1);
  EXPECT_FALSE(property(v, "bounded").holds);
  const SinusoidProperty& oracle = property(v, "oracle");
  ASSERT_FALSE(oracle.holds);
  EXPECT_EQ(oracle.worst[0].row, 5u);
  EXPECT_EQ(oracle.worst[0].column, 3);
  EXPECT_EQ(oracle.worst[0].what, "nan");

  SinusoidInput copy = in;  // one of a pair's two copies off by one ulp
  copy.values[9 * 16 + 11] = std::nextafter(static_cast<float>(copy.values[9 * 16 + 11]), 2.0f);
  const SinusoidVerdict c = verify_sinusoid(copy, d, {}, Claim::model(Dtype::kFloat32), 1);
  const SinusoidProperty& copies = property(c, "copies");
  ASSERT_FALSE(copies.holds);
  EXPECT_EQ(copies.worst[0].row, 9u);
  EXPECT_EQ(copies.worst[0].column, 11);
}

TEST(AlibiVerify, ExactSlopesPassStrictAndGeometricOnesAreNamed) {
  SinusoidInput in{"slopes", "test", Dtype::kFloat32, 1, 12, {}};
  for (const AlibiSlope& s : alibi_slopes(12, 8, AlibiRule::kReference))
    in.values.push_back(oracle::exact_alibi_slope(s, 8, Dtype::kFloat32).rounded);
  EXPECT_TRUE(verify_alibi(in, 8, Claim::strict()).holds());
  SinusoidInput geometric = in;
  geometric.values.clear();
  for (const AlibiSlope& s : alibi_slopes(12, 8, AlibiRule::kGeometric))
    geometric.values.push_back(oracle::exact_alibi_slope(s, 8, Dtype::kFloat32).rounded);
  const SinusoidVerdict v = verify_alibi(geometric, 8, Claim::model(Dtype::kFloat32));
  ASSERT_FALSE(v.holds());
  ASSERT_TRUE(v.diagnosis);
  EXPECT_EQ(v.diagnosis->cause, "recipe");
  EXPECT_EQ(property(v, "oracle").worst.size(), 8u);
}

}  // namespace
}  // namespace pev::verify::sinusoids
