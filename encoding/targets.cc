#include "peverify/encoding/targets.h"

#include <cstdlib>
#include <string>

#include "peverify/encoding/format.h"

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

}  // namespace pev
