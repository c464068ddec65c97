// The frequencies of the precise strategy: w_k = b^(e_k), or the rotary recipe's w_k
// (docs/mathematics.md §12.1), as an unevaluated sum of two doubles; and the recipe's attention
// factor.
#pragma once

#include <vector>

#include "peverify/encoding/spec.h"

namespace pev::core::precise {

// hi + lo with |lo| <= ulp(hi) / 2.
struct DoubleDouble {
  double hi = 0;
  double lo = 0;
};

// w_k for k in [0, d/2), with relative error at most frequency_error_bound(spec) (the derivation
// is beside the code). Computed in __float128 with libquadmath (GCC's runtime, not a third-party
// library), the recipe's decisions (yarn's floor and ceil, llama3's bands, the ramp's clamps)
// taken on those values.
std::vector<DoubleDouble> double_double_frequencies(const TableSpec& spec);

// A bound on |hi + lo - w_k| / w_k over every pair of `spec`.
double frequency_error_bound(const TableSpec& spec);

// The recipe's attention factor A computed in __float128 and rounded once to double (relative
// error <= 2^-53 (1 + 2^-50)); 1 for the plain encoding.
double attention_in_double(const TableSpec& spec);

}  // namespace pev::core::precise
