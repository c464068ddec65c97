// The fast path of Judge::add_row (measure/judge.cc): one row's elements that are settled without
// a call, in SIMD lanes (Highway's dynamic dispatch). Internal to measure/.
#pragma once

#include <cstdint>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/format.h"

namespace pev::measure::row {

// One row to judge: the claim, the output format and the per-column rates are the Judge's.
struct Input {
  const Claim* claim;
  Dtype output;
  bool by_encoding;  // strict and faithful judged against the correctly rounded row
  double pos;
  double steps_term;  // the rotations' term of the model budget (steps x attention)
  int width;
  const double* got;
  const double* exact;
  const double* rounded;     // the correctly rounded row, when by_encoding
  const double* angle_rate;  // per column: the weighted angle is pos x this
  double attention;          // |exact| <= attention
  double vacuous[2];         // Judge's thresholds of a budget that checks nothing
  double worst_so_far;       // the table's worst fraction of its budget before this row
};

// What the fast path keeps for one row. `sum_abs` is summed in eight partial sums by column mod 8,
// then in their order: the same bits whatever the SIMD target's width.
struct Figures {
  double max_abs = 0, sum_abs = 0, max_ulp = 0, max_ulp_floored = 0, worst_fraction = 0;
  int worst_column = -1;
  uint64_t vacuous[2] = {0, 0};
  int others = 0;  // elements left for Judge's slow path, listed in increasing column order
};

// Judges the row's elements that are a finite value of the exact value's sign within the claim
// (strict and faithful by encoding: the correctly rounded encoding itself); lists the others'
// columns in `other` (room for `width`).
Figures judge_fast(const Input& in, int* other);

}  // namespace pev::measure::row
