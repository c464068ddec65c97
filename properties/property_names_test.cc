// The properties' names are encoding/vocabulary.json's: the Python docstrings and the reports'
// readers take them from there, each check spells its own, and this test holds the two together.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "peverify/encoding/vocabulary.h"
#include "peverify/properties/checks.h"
#include "peverify/properties/consistent.h"

namespace pev::properties {
namespace {

// An honest float32 table: each value computed in double and rounded once.
void float32_table(const TableSpec& spec, uint64_t count, double* out) {
  const int half = spec.d_model / 2;
  for (uint64_t r = 0; r < count; ++r)
    for (int k = 0; k < half; ++k) {
      const double angle = static_cast<double>(spec.start + r) * frequency(spec, k);
      out[r * spec.d_model + 2 * k] = static_cast<float>(std::sin(angle));
      out[r * spec.d_model + 2 * k + 1] = static_cast<float>(std::cos(angle));
    }
}

TEST(PropertyNames, EachCheckNamesItsVerdictAsTheVocabularySpellsIt) {
  const auto ut =
      callable("float32", Dtype::kFloat32, Claim::model(Dtype::kFloat32), float32_table);
  const TableSpec spec = grid_spec(8, 1e4);  // interleaved, as float32_table writes it
  const std::vector<PropertyVerdict> suite = {
      check_bounded(*ut, spec, 64), check_unique(*ut, spec, 64),
      check_shift(*ut, spec, {{3, 5, 1}}), check_growth(*ut, spec, {0, 1, 100}),
      check_oracle(*ut, spec, 64)};
  std::vector<std::string> names;
  for (const PropertyVerdict& v : suite) names.push_back(v.property);
  EXPECT_EQ(names, vocabulary().suite_properties);
  EXPECT_EQ(std::vector<std::string>{check_consistent(*ut, spec, 128).property},
            vocabulary().verify_properties);
}

}  // namespace
}  // namespace pev::properties
