// The properties of docs/mathematics.md §5, as plain functions over an implementation under test:
// the gtest/RapidCheck suite, `peverify verify` and the reports all call these.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/measure/judge.h"
#include "peverify/properties/under_test.h"

namespace pev::properties {

using measure::Finding;

// The category (`what`) of a bounded finding where a value the layout stores twice differs from
// its twin: "its copy at dim 6: ...". Such a finding's `expected` is the twin's value, not an
// exact one, and no record excuses it.
inline constexpr std::string_view kDifferingCopy = "its copy at dim ";
inline bool names_differing_copy(const Finding& f) { return f.what.starts_with(kDifferingCopy); }

struct PropertyVerdict {
  std::string property;  // one of encoding/vocabulary.json's properties: bounded, unique, ...
  bool holds = true;
  std::string summary;                    // one line: the key figures
  std::vector<std::string> notes;         // what the verdict does not say: limits, vacuous budgets
  std::vector<Finding> worst;             // the worst elements, worst first (at most kMaxFindings)
  std::map<std::string, double> figures;  // named results (max_abs, fitted_c, horizon_1e-6, ...)
  uint64_t checked = 0;                   // elements (or cases) looked at
  static constexpr size_t kMaxFindings = 8;
};

// Every value finite and in [-1, 1]; sin^2 + cos^2 - 1 within the tolerance the claim implies.
PropertyVerdict check_bounded(const UnderTest& ut, const TableSpec& spec, uint64_t count);

// No two rows equal (found by hashing the bit patterns); reports the nearest distance between
// neighbouring rows. A repeated row that the correctly rounded table of the same spec repeats
// too is a limit of the output format (a note), not a failure.
PropertyVerdict check_unique(const UnderTest& ut, const TableSpec& spec, uint64_t count);

// The shift identities on the implementation's own values, for cases (pos, m, pair):
//   row(pos + m) = M_m row(pos) and row(pos) = M_m^T row(pos + m), M_m exact (the oracle);
//   M_a M_b = M_{a+b} with M_x read from the implementation's own rows a, b and a + b.
// Tolerances follow from the claim: a rotation keeps lengths, so an error e in the input pair
// becomes at most |e| in the output pair.
struct ShiftCase {
  uint64_t pos;
  uint64_t m;
  int pair;
};
PropertyVerdict check_shift(const UnderTest& ut, const TableSpec& spec,
                            const std::vector<ShiftCase>& cases);

// Every element against the exact value, within the claim; strict and faithful claims by
// encoding against the correctly rounded values.
PropertyVerdict check_oracle(const UnderTest& ut, const TableSpec& spec, uint64_t count);

// Error versus position on sampled rows (log-spaced up to ut.max_position): the constant C of
// the model |err| <= ulp/2 + C u (|exact| + a + steps) fitted with the rotation steps the
// implementation claims (the largest ratio seen; `direct_c` the same without the steps, as if
// every row were computed directly), and the horizon for each target: the largest sampled
// position up to which every row meets it. Holds when the fitted C stays within the claim's C
// (model claims) and every element is within the claim.
PropertyVerdict check_growth(const UnderTest& ut, const TableSpec& spec_template,
                             const std::vector<uint64_t>& positions);

// One verdict from verdicts of the same property on different tables: holds if all hold,
// counts and sums add up, maxima stay maxima, the worst findings are kept, and the summary is
// that of the first failing part (else of the first).
PropertyVerdict merge(const std::vector<PropertyVerdict>& parts);

// The figures of an oracle check, as check_oracle names them.
void record_oracle_figures(const measure::Figures& f, PropertyVerdict& v);
// The lines that say how many elements had a budget that checks nothing useful (docs/mathematics.md
// §3.4), from which position, and which claim would check them. Empty when there are none.
std::vector<std::string> vacuous_notes(const measure::Figures& f, const Claim& claim, Dtype output);

// Positions for check_growth: every power of two and a few between, up to max_position.
std::vector<uint64_t> growth_positions(uint64_t max_position);

// The accuracy targets horizons are reported for, with the names reports use: encoding/
// vocabulary.json's.
struct Target {
  std::string name;  // an absolute error ("1e-4") or "faithful"
  double abs = 0;    // absolute error target; 0 means faithful (< 1 ulp)
};
const std::vector<Target>& horizon_targets();

}  // namespace pev::properties
