// The frequencies of the precise strategy: w_k = b^(e_k) as an unevaluated sum of two doubles.
#pragma once

#include <vector>

#include "encoding/spec.h"

namespace pev::core::precise {

// hi + lo with |lo| <= ulp(hi) / 2.
struct DoubleDouble {
  double hi = 0;
  double lo = 0;
};

// w_k for k in [0, d/2), with relative error at most frequency_error_bound(spec) (the derivation
// is beside the code). Uses libquadmath's powq: GCC's runtime, not a third-party library.
std::vector<DoubleDouble> double_double_frequencies(const TableSpec& spec);

// A bound on |hi + lo - w_k| / w_k over every pair of `spec`.
double frequency_error_bound(const TableSpec& spec);

}  // namespace pev::core::precise
