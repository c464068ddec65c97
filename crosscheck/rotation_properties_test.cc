// The applied-rotation properties (properties/rotation_properties.h) on every registry rotation,
// each held to the budget of the compute it claims; and a kernel with a wrong angle fails them.
#include "peverify/properties/rotation_properties.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cctype>
#include <string>
#include <vector>

#include "peverify/adapters/rotation_entry.h"

namespace pev::crosscheck {
namespace {

// One test per entry; a CUDA entry without a device is skipped with the reason.
class EveryEntry : public testing::TestWithParam<const core::RotationImplementation*> {};

TEST_P(EveryEntry, HoldsThemUnderItsClaim) {
  const core::RotationImplementation& e = *GetParam();
  if (!e.runs_here()) GTEST_SKIP() << e.unavailable_reason;
  EXPECT_TRUE(properties::check_rotation_properties(adapters::rotation_under_test(e))) << e.name;
}

std::vector<const core::RotationImplementation*> entries() {
  std::vector<const core::RotationImplementation*> v;
  for (const core::RotationImplementation& e : core::rotation_registry()) v.push_back(&e);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Rotation, EveryEntry, testing::ValuesIn(entries()),
                         [](const testing::TestParamInfo<const core::RotationImplementation*>& i) {
                           std::string n = i.param->name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

const core::RotationImplementation& cache_f32() {
  return *core::find_rotation("cpu/rotate/cache-f32/f32");
}

std::vector<double> swap_pairs(const RotationSpec& spec, std::vector<double> v) {
  for (size_t o = 0; o < v.size(); o += spec.head_dim)
    for (int j = 0; j < spec.table.d_model / 2; ++j) {
      const auto [a, b] = rotated_dims(spec, j);
      std::swap(v[o + a], v[o + b]);
    }
  return v;
}

// out_b = x_b cos - x_a sin (a sign typo in one of the two outputs): not a rotation, so every
// property breaks. The b elements come from the rotation by -p: the honest kernel with each
// pair's dims exchanged around it.
TEST(RotationProperties, ASignTypoInOneOutputFailsEveryProperty) {
  properties::RotationUnderTest k = adapters::rotation_under_test(cache_f32());
  k.name = "out_b with -sin";
  k.apply = [](const RotationSpec& spec, const RowPositions& p, const uint64_t* tokens, uint64_t n,
               int heads, const double* x, double* out) {
    const core::RotationImplementation& e = cache_f32();
    const std::vector<double> in(x, x + n * heads * spec.head_dim);
    std::vector<double> y = adapters::apply_rotation(e, spec, p, tokens, n, heads, in);
    const std::vector<double> back = swap_pairs(
        spec, adapters::apply_rotation(e, spec, p, tokens, n, heads, swap_pairs(spec, in)));
    for (size_t o = 0; o < y.size(); o += spec.head_dim)
      for (int j = 0; j < spec.table.d_model / 2; ++j) {
        const int b = rotated_dims(spec, j).second;
        y[o + b] = back[o + b];
      }
    std::copy(y.begin(), y.end(), out);
  };
  EXPECT_FALSE(rc::check(k.name + ": norm", [&] { properties::rotation_norm_property(k); }));
  EXPECT_FALSE(rc::check(k.name + ": relative position",
                         [&] { properties::rotation_relative_position_property(k); }));
  EXPECT_FALSE(rc::check(k.name + ": inverse", [&] { properties::rotation_inverse_property(k); }));
  EXPECT_FALSE(
      rc::check(k.name + ": composition", [&] { properties::rotation_composition_property(k); }));
  EXPECT_FALSE(rc::check(k.name + ": score", [&] { properties::rotation_score_property(k); }));
}

// The kernel at twice each position: lengths are kept and relative positions still agree (both
// sides turn by 2(n - m)), but rotating back by R(m) does not give x, and the score is the one of
// distance 2(n - m).
TEST(RotationProperties, DoubledPositionsFailTheInverseAndTheScore) {
  properties::RotationUnderTest k = adapters::rotation_under_test(cache_f32());
  k.name = "positions doubled";
  k.apply = [](const RotationSpec& spec, const RowPositions& p, const uint64_t* tokens, uint64_t n,
               int heads, const double* x, double* out) {
    RowPositions doubled = p;
    for (uint64_t& id : doubled.streams[0]) id *= 2;
    const std::vector<double> in(x, x + n * heads * spec.head_dim);
    const std::vector<double> y =
        adapters::apply_rotation(cache_f32(), spec, doubled, tokens, n, heads, in);
    std::copy(y.begin(), y.end(), out);
  };
  EXPECT_FALSE(rc::check(k.name + ": inverse", [&] { properties::rotation_inverse_property(k); }));
  EXPECT_FALSE(rc::check(k.name + ": score", [&] { properties::rotation_score_property(k); }));
}

// The kernel one position late (positions off by one): lengths, relative positions and so the
// scores hold, but K(a) K(b) turns by a + b + 2 where A K(a + b) turns by a + b + 1.
TEST(RotationProperties, PositionsOffByOneFailCompositionNotRelativePositionOrTheScore) {
  properties::RotationUnderTest k = adapters::rotation_under_test(cache_f32());
  k.name = "positions + 1";
  k.apply = [](const RotationSpec& spec, const RowPositions& p, const uint64_t* tokens, uint64_t n,
               int heads, const double* x, double* out) {
    RowPositions late = p;
    for (uint64_t& id : late.streams[0]) id += 1;
    const std::vector<double> in(x, x + n * heads * spec.head_dim);
    const std::vector<double> y =
        adapters::apply_rotation(cache_f32(), spec, late, tokens, n, heads, in);
    std::copy(y.begin(), y.end(), out);
  };
  EXPECT_TRUE(rc::check(k.name + ": relative position",
                        [&] { properties::rotation_relative_position_property(k); }));
  EXPECT_TRUE(rc::check(k.name + ": score", [&] { properties::rotation_score_property(k); }));
  EXPECT_FALSE(
      rc::check(k.name + ": composition", [&] { properties::rotation_composition_property(k); }));
}

}  // namespace
}  // namespace pev::crosscheck
