// The accuracy targets the study measures horizons for and the recommendation answers: absolute
// errors ("1e-4") and "faithful" (every element within one ulp of the exact value).
#pragma once

#include <optional>
#include <string_view>

#include "peverify/encoding/spec.h"

namespace pev {

// The absolute error a target names ("1e-4" -> 1e-4); nullopt for "faithful" or anything else.
std::optional<double> absolute_target(std::string_view target);

// Whether no table stored in `dtype` can meet `target`: an absolute target below the output
// format's own rounding (output_rounding_error).
bool beyond_output_format(Dtype dtype, std::string_view target);

}  // namespace pev
