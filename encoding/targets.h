// The accuracy targets the study measures horizons for and the recommendation answers: absolute
// errors ("1e-4") and "faithful" (every element within one ulp of the exact value).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/spec.h"

namespace pev {

// The absolute error a target names ("1e-4" -> 1e-4); nullopt for "faithful" or anything else.
std::optional<double> absolute_target(std::string_view target);

// Whether no table stored in `dtype` can meet `target`: an absolute target below the output
// format's own rounding (output_rounding_error).
bool beyond_output_format(Dtype dtype, std::string_view target);

// `peverify recommend`'s targets for `dtype` when none is asked (vocabulary.json's
// recommend_default): each absolute target the type cannot hold is replaced by the smallest of the
// report's recommended targets it can (bfloat16: 1e-2 for 1e-4), so that no default answer is
// "none: below what the type holds".
std::vector<std::string> default_targets(Dtype dtype);

}  // namespace pev
