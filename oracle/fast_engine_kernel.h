// The fast engine's arithmetic (oracle/fast_engine.md): one row of elements (one position, a run of
// pairs) evaluated in double-double with a proven error bound per element, then rounded to the
// target format and to float64 where the bound decides it. What the bound cannot decide is left to
// the caller (fast_engine.cc hands it to the MPFR engine). SIMD with Highway's dynamic dispatch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "peverify/encoding/spec.h"

namespace pev::oracle::fast {

// The quarter-turn [0, 1/2] is cut into kTableSteps steps; sin and cos of each step are tabulated.
inline constexpr int kTableSteps = 256;  // steps of 1/512 quarter turn; N = 512 in the doc
inline constexpr int kTableEntries = kTableSteps + 1;
// Per-pair arrays are readable this far past their last pair, so a row never needs a scalar tail.
inline constexpr size_t kPad = 64;

// pi/2 and -1/6 as double-doubles (checked against MPFR by the tests): |pi/2 - hi - lo| < 2^-108.
inline constexpr double kHalfPiHi = 0x1.921fb54442d18p+0;
inline constexpr double kHalfPiLo = 0x1.1a62633145c07p-54;
inline constexpr double kMinusSixthHi = -0x1.5555555555555p-3;
inline constexpr double kMinusSixthLo = -0x1.5555555555555p-57;

// sin and cos of j * (pi/2) / 512 for j = 0 .. 256, each as a double-double from MPFR:
// table[4j .. 4j+3] = {sin_hi, sin_lo, cos_hi, cos_lo}, each |value - hi - lo| <= 2^-105.9 |value|.
const double* sincos_table();

// t_k = w_k * 2/pi, quarter turns per position, as t0 + t1 + t2 (fast_engine.md, section R).
// A pair whose t0 is NaN is never decided (its lanes are always handed off).
struct PairArrays {
  const double* t0;
  const double* t1;
  const double* t2;
};

// A table's constants, from MPFR (fast_engine.md, R0 and A1): every pair's words and A.
struct TableWords {
  std::vector<double> t0, t1, t2;  // d/2 pairs, then kPad
  // A as a double-double, |A - hi - lo| <= 2^-105.9 |A|; exactly 1 + 0 for plain tables.
  double attention_hi = 1, attention_lo = 0;
  bool attention_in_range = true;  // 2^-64 <= |A| <= 2^8; else every element goes to MPFR
  // d/2 pairs: w = 0 exactly (proportional's tail). Their t0 is NaN, so the kernel hands them
  // off; their angle is 0 at every position, so callers write cos A and sin 0 themselves.
  std::vector<char> zero;
};
TableWords table_words(const TableSpec& spec);

// One row's sin and cos before rounding and before the attention factor: double-doubles and the
// bound on |hi + lo - exact| (fast_engine.md, B and N), one array each, `count + kPad` long (the
// kernel writes whole vectors). What rotated rows start from: an anchor row and the offsets.
struct RowValues {
  std::vector<double> sin_hi, sin_lo, sin_bound, cos_hi, cos_lo, cos_bound;
  // Room for `count` values (their contents unspecified until written).
  void resize(size_t count);
  // Every entry sin + 0 and cos + 0, bounds 0: exact values.
  void set_exact(double sin, double cos);
};
// RowValues from one pair on: readable for the row's count + kPad entries.
struct ValuesAt {
  const double *sin_hi, *sin_lo, *sin_bound, *cos_hi, *cos_lo, *cos_bound;
};
ValuesAt values_at(const RowValues& values, size_t first);

// Where a row's results go: count entries each, the values rounded to the target and to float64,
// and the indices (0 .. count-1) of the elements the bound did not decide (their outputs are
// unspecified; room for count entries).
struct RowOutputs {
  double* sin_rounded;
  double* cos_rounded;
  double* sin_exact;
  double* cos_exact;
  uint32_t* undecided;
};

struct Row {
  double position;   // an integer in [1, 2^53], exact
  PairArrays pairs;  // at the row's first pair; readable for count + kPad entries
  // The attention factor A as a double-double (|A - hi - lo| <= 2^-105.9 |A|, 2^-64 <= |hi| <=
  // 2^8): the values are A sin and A cos. Exactly 1 + 0 for plain tables, which skip the product.
  double attention_hi = 1, attention_lo = 0;
  size_t count;
  RowOutputs out;
  // When given, also receives the row's values before rounding and before A (an anchor row).
  RowValues* keep = nullptr;
};

// Evaluates a row; returns how many indices it wrote to row.out.undecided.
size_t evaluate_row(const Row& row, Dtype target);

// A row rotated from an anchor row `j` positions before it (fast_engine.md, N): sin and cos of
// (anchor + j) w from those of anchor w and of j w, each with its bound. Outputs as Row's.
struct RotatedRow {
  ValuesAt anchor;  // at the anchor position
  ValuesAt offset;  // at position j
  double attention_hi = 1, attention_lo = 0;
  size_t count;
  RowOutputs out;
};
size_t evaluate_rotated_row(const RotatedRow& row, Dtype target);

// One element before rounding, for the tests of the bound: A sin and A cos of position * t as
// double-doubles, and the bound on |hi + lo - exact| that the rounding test uses.
struct Detail {
  double sin_hi, sin_lo, sin_bound;
  double cos_hi, cos_lo, cos_bound;
};
Detail evaluate_detail(double position, double t0, double t1, double t2, double attention_hi = 1,
                       double attention_lo = 0);
// The same for position anchor + offset, rotated from the kernel's values at both (section N).
Detail evaluate_rotated_detail(double anchor, double offset, double t0, double t1, double t2,
                               double attention_hi = 1, double attention_lo = 0);

// The Highway target that evaluate_row dispatches to on this CPU, e.g. "AVX3".
const char* dispatched_target();

}  // namespace pev::oracle::fast
