// The recommendation rule (docs/features.md §14), one rule for the report's matrix, its findings
// and `peverify recommend`: it works on what it needs of each entry (a Candidate), taken from a
// study's EntryResult or read back from report.json, so the two can never disagree.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "peverify/properties/checks.h"
#include "peverify/reports/study/study.h"
#include "peverify/support/spread.h"

namespace pev::reports::study {

// Where a failing property starts: its recorded first failure (figures["first_failure"]), else
// its earliest worst element (the worst elements are kept by size, so this is where the worst
// failures start, not necessarily the first). nullopt when it holds or no position is known.
std::optional<uint64_t> first_position(const properties::PropertyVerdict& v);

// One build of an entry as the rule sees it: the plain encoding, or one rotary model's cache.
struct CandidateAccuracy {
  double max_abs = 0;                        // over the study (infinite: NaN or Inf seen)
  std::map<std::string, uint64_t> horizons;  // target -> largest position meeting it
};

struct Candidate {
  std::string name, output;
  bool available = true;
  std::optional<Spread> values_per_s;  // median, min, max over the repetitions
  std::optional<double> roofline_ratio;
  CandidateAccuracy plain;
  std::map<std::string, CandidateAccuracy> models;  // by model preset name
  // Every property that fails, generically (whatever properties the study checks), and where it
  // starts; nullopt: no known position, so it fails everywhere.
  std::vector<std::pair<std::string, std::optional<uint64_t>>> failures;
};

Candidate candidate_of(const EntryResult& e);
std::vector<Candidate> candidates_of(const std::vector<EntryResult>& entries);

// The candidates in report.json's implementations (`source` names the file in errors). Throws
// FileError, one line naming the field, when the report is malformed or not a peverify report.
std::vector<Candidate> candidates_from_report(const nlohmann::json& report,
                                              const std::string& source);

// The property that rules `c` out of a context of `context` positions (0 .. context - 1): the
// first one failing at a position below it, or failing at no known position. nullopt: none.
std::optional<std::string> excluded_by(const Candidate& c, uint64_t context);

// For each output dtype, context length and target: among the candidates of that output whose
// horizon reaches the context and that no property rules out, the one the rule picks. A target an
// output type cannot hold (bfloat16 and 1e-4) is left out unless `unholdable` (a user asked it:
// the answer says why none meets it). Each cell's PyTorch code names what it replaces: the
// `framework`'s code (reports/study/snippets.h frameworks()).
std::vector<Recommendation> recommend(const std::vector<Candidate>& candidates,
                                      const std::vector<std::string>& dtypes,
                                      const std::vector<uint64_t>& contexts,
                                      const std::vector<std::string>& targets,
                                      bool unholdable = false, const std::string& framework = "hf");
// The same for one rotary model's cache of `positions` positions (its model horizons and errors),
// targets the type cannot hold left out.
std::vector<Recommendation> recommend_for_model(const std::vector<Candidate>& candidates,
                                                const std::string& model,
                                                const std::vector<std::string>& dtypes,
                                                uint64_t positions,
                                                const std::vector<std::string>& targets);

}  // namespace pev::reports::study
