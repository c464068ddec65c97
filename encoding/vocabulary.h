// The words and numbers peverify shares with its users (encoding/vocabulary.json, compiled in):
// the default base, the accuracy targets, what the report recommends for and the properties'
// names. The command line's help and the Python docstrings are built from them, so each is
// written once. Included by spec.h: it depends on nothing of peverify's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pev {

struct Vocabulary {
  double default_base;  // the frequency base b when none is given
  struct Targets {
    std::vector<std::string> horizons;           // the study measures a horizon for each
    std::vector<std::string> recommended;        // the report recommends an entry for each
    std::vector<std::string> recommend_default;  // `peverify recommend` without --target
  } targets;
  // The report's recommendations: plain tables stored in these, rotary models' caches in
  // those, contexts of these many positions.
  std::vector<std::string> output_dtypes;
  std::vector<std::string> model_output_dtypes;
  std::vector<uint64_t> context_lengths;
  std::vector<std::string> suite_properties;   // the suite's verdicts, in its order
  std::vector<std::string> verify_properties;  // those verify adds on a user's table
  std::vector<std::string> diagnosis_causes;   // the words a diagnosis's cause may be
};

// Read once (the file is compiled in).
const Vocabulary& vocabulary();

// vocabulary().default_base: TableSpec's default, and every help text's and docstring's.
double default_base();

// The words as a sentence lists them: "a", "a and b", "a, b and c" (conjunction "and").
std::string in_words(const std::vector<std::string>& words, std::string_view conjunction);

}  // namespace pev
