#include "peverify/encoding/targets.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "peverify/encoding/format.h"
#include "peverify/encoding/vocabulary.h"

namespace pev {

std::optional<double> absolute_target(std::string_view target) {
  const std::string text(target);
  char* end = nullptr;
  const double abs = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return abs;
}

bool beyond_output_format(Dtype dtype, std::string_view target) {
  const std::optional<double> abs = absolute_target(target);
  return abs && *abs < output_rounding_error(dtype);
}

std::vector<std::string> default_targets(Dtype dtype) {
  const Vocabulary::Targets& words = vocabulary().targets;
  std::vector<std::string> out;
  const auto add = [&](const std::string& t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  for (const std::string& t : words.recommend_default) {
    if (!beyond_output_format(dtype, t)) {
      add(t);
      continue;
    }
    std::optional<std::string> holdable;  // the smallest recommended absolute target it holds
    for (const std::string& r : words.recommended)
      if (absolute_target(r) && !beyond_output_format(dtype, r) &&
          (!holdable || *absolute_target(r) < *absolute_target(*holdable)))
        holdable = r;
    if (holdable) add(*holdable);
  }
  return out;
}

}  // namespace pev
