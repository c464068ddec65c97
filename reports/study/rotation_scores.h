// The report's section on rotations (docs/features.md §15.6): for every rotation entry that runs
// here, the error of the attention score q . k its outputs give, by context length, on a real
// model's recipe, and which entry to use for each input type. The figures are
// properties::score_error's (sampled (query, key) pairs, said in the section); the kernels' own
// element verdicts are verify-rotary's and the registry tests'.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "peverify/properties/rotation_properties.h"

namespace pev::reports::study {

struct RotationScoreRow {
  std::string name, compute, input, output, description;
  std::vector<properties::ScoreError> by_context;  // one per RotationScores::contexts
};

struct RotationScores {
  std::string model;               // the preset whose recipe the rotations apply
  std::vector<uint64_t> contexts;  // context lengths
  uint64_t samples = 0;            // (query, key) pairs per context
  std::vector<RotationScoreRow> rows;
  std::vector<std::pair<std::string, std::string>> not_run;  // entry, why
  // One per input type: among the entries within their budget at every context, those within 10%
  // of the smallest worst score error at the longest context, and how far the others are.
  std::vector<std::string> recommendations;
  // The recommended entries whose PyTorch code exists (reports/study/snippets.h): (entry, code,
  // the kernel's equivalent).
  struct Code {
    std::string entry, pytorch, cuda;
  };
  std::vector<Code> code;
  double seconds = 0;
};

// Every rotation entry that runs here on `model`'s recipe (head_dim 128 unless the preset says);
// `contexts` and `samples` must not be empty or 0 (std::invalid_argument).
RotationScores study_rotation_scores(const std::string& model = "llama-3.1-8b",
                                     const std::vector<uint64_t>& contexts = {4096, 32768, 131072},
                                     uint64_t samples = 256);

nlohmann::json to_json(const RotationScores& s);

}  // namespace pev::reports::study
