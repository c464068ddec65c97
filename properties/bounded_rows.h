// The two scans `bounded` makes of every row verify reads, in SIMD lanes (Highway's dynamic
// dispatch): the largest |value| and whether all are finite, and the model's cheap test of
// sin^2 + cos^2 = att^2 that settles almost every pair. Internal to properties/ (bounded.cc).
#pragma once

#include <cstddef>

namespace pev::properties::bounded_rows {

struct ValueScan {
  double max_abs = 0;  // the largest |value| among the finite ones ...
  bool finite = true;  // ... when every value is finite (else unspecified)
};
ValueScan scan_values(const double* row, size_t width);

// The pairs of one row that the model's lower tolerance does not settle (bounded.cc's
// identity_row): |s^2 + c^2 - att^2| <= 2 C u (s^2 + c^2 + angle (|s| + |c|)) min(worst, 1),
// evaluated in the same order as the scalar expression. Lists them, in order, in `unsettled`
// (room for `pairs`) and returns how many.
struct IdentityRowInput {
  double pos;
  int pairs;
  const int* sin_col;
  const int* cos_col;
  const double* rate;  // per pair: the weighted angle is pos x this
  const double* row;
  double two_cu;     // 2 C u
  double att2;       // att^2
  double threshold;  // min(worst, 1)
};
int unsettled_pairs(const IdentityRowInput& in, int* unsettled);

}  // namespace pev::properties::bounded_rows
