#include "peverify/encoding/vocabulary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/spec.h"
#include "peverify/encoding/targets.h"

namespace pev {
namespace {

bool contains(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// vocabulary.json's lists agree with each other and with what the code parses: a target or
// dtype the report would recommend for must be one the rest of peverify knows.
TEST(Vocabulary, DefaultBaseIsEveryDefault) {
  EXPECT_GT(default_base(), 1);  // validate() refuses b <= 1
  EXPECT_EQ(TableSpec().base, default_base());
  EXPECT_EQ(ModelRope().base, default_base());
  // A config without rope_theta (and of no class with its own default) takes it too.
  EXPECT_EQ(model_rope_from_config(R"({"head_dim": 64})").base, default_base());
}

// The causes the issue that asked for diagnosis names (issue 34), all documented.
TEST(Vocabulary, DiagnosisCausesHoldEveryNamedCause) {
  for (const char* cause :
       {"recipe", "base", "layout", "pairing", "sign", "positions", "sections", "layer-type",
        "frequency-dtype", "compute", "rotary-dim", "isolated", "none"})
    EXPECT_TRUE(contains(vocabulary().diagnosis_causes, cause)) << cause;
}

TEST(Vocabulary, TargetsAreAbsoluteErrorsOrFaithful) {
  const Vocabulary::Targets& t = vocabulary().targets;
  for (const std::string& name : t.horizons) {
    const std::optional<double> abs = absolute_target(name);
    EXPECT_TRUE(name == "faithful" || (abs && *abs > 0 && *abs < 1)) << name;
  }
  // The report recommends, and `recommend` answers, only for targets with a measured horizon.
  for (const std::string& name : t.recommended) EXPECT_TRUE(contains(t.horizons, name)) << name;
  for (const std::string& name : t.recommend_default)
    EXPECT_TRUE(contains(t.horizons, name)) << name;
}

TEST(Vocabulary, RecommendationsAreForStoredTypesAndIncreasingContexts) {
  const Vocabulary& v = vocabulary();
  for (const std::string& name : v.output_dtypes) {
    EXPECT_TRUE(parse_dtype(name).has_value()) << name;
    EXPECT_NE(name, "float64") << "no registry entry stores float64";
  }
  for (const std::string& name : v.model_output_dtypes)
    EXPECT_TRUE(contains(v.output_dtypes, name)) << name;
  ASSERT_FALSE(v.context_lengths.empty());
  EXPECT_GT(v.context_lengths.front(), 0u);
  EXPECT_TRUE(std::is_sorted(v.context_lengths.begin(), v.context_lengths.end()));
}

TEST(Vocabulary, PropertyNamesAreDistinct) {
  const Vocabulary& v = vocabulary();
  std::set<std::string> names(v.suite_properties.begin(), v.suite_properties.end());
  names.insert(v.verify_properties.begin(), v.verify_properties.end());
  EXPECT_EQ(names.size(), v.suite_properties.size() + v.verify_properties.size());
}

TEST(Vocabulary, ListsReadAsASentence) {
  EXPECT_EQ(in_words({}, "and"), "");
  EXPECT_EQ(in_words({"faithful"}, "and"), "faithful");
  EXPECT_EQ(in_words({"1e-4", "faithful"}, "and"), "1e-4 and faithful");
  EXPECT_EQ(in_words({"bounded", "unique", "oracle"}, "or"), "bounded, unique or oracle");
}

}  // namespace
}  // namespace pev
