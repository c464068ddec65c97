#include "peverify/encoding/vocabulary.h"

#include <nlohmann/json.hpp>

namespace pev {

extern const char* const kVocabularyJson;  // encoding/vocabulary.json, compiled in

namespace {

std::vector<std::string> causes(const nlohmann::json& described) {
  std::vector<std::string> words;
  for (const auto& [word, meaning] : described.items()) words.push_back(word);
  return words;
}

Vocabulary read_vocabulary() {
  const nlohmann::json j = nlohmann::json::parse(kVocabularyJson);
  const nlohmann::json& targets = j.at("accuracy_targets");
  const nlohmann::json& recommendations = j.at("recommendations");
  using Words = std::vector<std::string>;
  return {j.at("default_base").at("value").get<double>(),
          {targets.at("horizons").get<Words>(), targets.at("recommended").get<Words>(),
           targets.at("recommend_default").get<Words>()},
          recommendations.at("output_dtypes").get<Words>(),
          recommendations.at("model_output_dtypes").get<Words>(),
          recommendations.at("context_lengths").get<std::vector<uint64_t>>(),
          j.at("properties").at("suite").get<Words>(),
          j.at("properties").at("verify_adds").get<Words>(),
          causes(j.at("diagnosis_causes").at("causes"))};
}

}  // namespace

const Vocabulary& vocabulary() {
  static const Vocabulary v = read_vocabulary();
  return v;
}

double default_base() { return vocabulary().default_base; }

std::string in_words(const std::vector<std::string>& words, std::string_view conjunction) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0 && i + 1 == words.size()) {
      s += ' ';
      s += conjunction;
      s += ' ';
    } else if (i > 0) {
      s += ", ";
    }
    s += words[i];
  }
  return s;
}

}  // namespace pev
