// A figure as JSON: JSON has no NaN or Inf, so every report and verdict writes a figure that is
// not finite as null (and reads null back as infinite or undefined).
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>

namespace pev {

inline nlohmann::json finite_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

}  // namespace pev
