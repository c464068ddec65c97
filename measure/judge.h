// The one loop that judges a table's elements against their exact values and a claim, and the
// running figures it keeps (docs/mathematics.md §4). verify, the property suite, the study, the
// gate and the registry's tests all measure through it, so they agree on what counts as a number,
// what is outside a claim and what a figure means.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/spec.h"
#include "peverify/measure/error.h"

namespace pev::measure {

// One element that broke (or came closest to breaking) a property or a claim.
struct Finding {
  // A constructor, not an aggregate: the brace lists that name findings everywhere stay valid
  // (and warning-free) without the row.
  Finding(uint64_t pos = 0, int column = 0, double got = 0, double expected = 0, double error = 0,
          double allowed = 0, double ulp = 0, std::string what = {},
          std::optional<uint64_t> row = std::nullopt)
      : pos(pos),
        column(column),
        got(got),
        expected(expected),
        error(error),
        allowed(allowed),
        ulp(ulp),
        what(std::move(what)),
        row(row) {}
  uint64_t pos;
  int column;
  double got;
  double expected;  // the exact value, or what an identity predicts
  double error;     // |got - expected| (NaN when got is not a number)
  double allowed;   // the budget or tolerance it was held to
  // The error in ulps of the output at max(|expected|, kUlpFloor), as people read ulps (oracle
  // checks; docs/mathematics.md §4).
  double ulp;
  std::string what;  // the category ("number", "nan", ...) or the identity ("M_m", ...)
  // The file row, for a table at given position ids (properties/position_map.h): there a
  // position may repeat, and the rows are not in position order.
  std::optional<uint64_t> row;
  // M-RoPE, a row whose streams differ: which stream `pos` is (0 temporal, 1 height, 2 width),
  // the one the element's pair takes its angle from; -1 where there is one position.
  int stream = -1;
};

// "t", "h", "w" for an M-RoPE stream (Finding::stream).
inline const char* stream_name(int stream) { return stream == 0 ? "t" : stream == 1 ? "h" : "w"; }

// Keeps the `limit` worst findings, worst first, by error / allowed (NaN errors are the worst).
void keep_worst(std::vector<Finding>& worst, const Finding& f, size_t limit = 8);
// Whether keep_worst would keep a finding of this error and allowance (so that hot loops build
// the finding only when it matters).
bool would_keep(const std::vector<Finding>& worst, double error, double allowed, size_t limit = 8);

// Figures over a set of elements, mergeable in any grouping: counts add, maxima stay maxima.
struct Figures {
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

  uint64_t elements = 0;
  uint64_t nan = 0, inf = 0, sign_mismatch = 0;  // the categories (sign mismatches are numbers)
  // Outside the claim, by cause: NaN and Inf always are (nan + inf), then signs the claim fixes
  // and values it does not allow. over_claim is the sum of all four.
  uint64_t over_claim = 0;
  uint64_t failed_sign = 0, failed_value = 0;
  double max_abs = 0, sum_abs = 0, max_ulp = 0;  // over the numbers
  double max_ulp_floored = 0;  // in ulps of max(|exact|, kUlpFloor): what people read
  // The largest error / allowed over the numbers, and where.
  double worst_fraction = 0;
  uint64_t worst_pos = 0;
  int worst_column = 0;
  // Elements whose budget is at least claim_constants().vacuous_budget[i]: checked against
  // nothing useful. And the first position where that happens.
  uint64_t vacuous[2] = {0, 0};
  uint64_t first_vacuous_pos[2] = {kNone, kNone};
  // The largest angle term (pos w_k times the attention and the recipe's conditioning): what
  // tells which claim would check the vacuous elements.
  double max_weighted_angle = 0;

  uint64_t not_numbers() const { return nan + inf; }
  // The maxima as a headline: infinite when any element is not a number.
  double max_abs_or_inf() const;
  double max_ulp_or_inf() const;
  double mean_abs() const { return elements ? sum_abs / static_cast<double>(elements) : 0; }
  void merge(const Figures& other);
};

// The verdict on one element.
// The claim rule (docs/mathematics.md §3.3), the one every element of a table or an applied
// rotation is judged by: strict, the correctly rounded encoding `rounded` itself; faithful, one of
// the two finite values of the format that bracket `exact` (its side known where `exact_is_true`);
// the model, an error within what it allows. NaN and Inf categories, and the model's rule for
// signs, are the caller's (Judge::judge).
inline bool within_claim(Claim::Kind kind, double got, double exact, double rounded,
                         double abs_error, double allowed, Dtype output, bool exact_is_true) {
  switch (kind) {
    case Claim::Kind::kStrict:
      return same_encoding(got, rounded);
    case Claim::Kind::kFaithful:
      return std::isfinite(got) && is_faithful_encoding(got, exact, rounded, output, exact_is_true);
    case Claim::Kind::kModel:
      return abs_error <= allowed;
  }
  return false;
}

struct Judgement {
  ElementError error;
  double allowed = 0;
  bool within = false;  // a number within what the claim allows
  // When not within, why: kNaN, kInf, kSignMismatch (a sign the claim fixes is wrong), or
  // kNumber (a value the claim does not allow).
  Category failure = Category::kNumber;
};

// Judges rows of one table (its spec: layout, frequencies) stored in `output` against `claim`.
class Judge {
 public:
  Judge(const TableSpec& spec, const Claim& claim, Dtype output);

  const Claim& claim() const { return claim_; }
  Dtype output() const { return output_; }
  int width() const { return static_cast<int>(column_frequency_.size()); }
  // pos * w of column `column`'s pair, in double.
  double angle(uint64_t pos, int column) const {
    return static_cast<double>(pos) * column_frequency_[column];
  }

  // The claim's budget for one element. With a rotary recipe the values are scaled by the
  // attention factor, and so are the angle's and the rotations' contributions; the angle term
  // also grows by the recipe's conditioning (docs/mathematics.md §3.2). Plain tables: weight 1.
  double allowed(uint64_t pos, int column, double steps, double exact) const {
    return claim_.allowed(exact, weighted_angle(pos, column), steps * attention_, output_);
  }
  // The angle as the claim's angle term counts it: times the attention factor and the recipe's
  // conditioning (the plain angle for plain tables).
  double weighted_angle(uint64_t pos, int column) const {
    return angle(pos, column) * angle_weight_[column];
  }

  // One element. `rounded`, when given, is the correctly rounded value in the output format:
  // strict and faithful claims are then judged by encoding (docs/mathematics.md §3.3), else by
  // number. A sign mismatch fails every claim that fixes the sign: the model's where the exact
  // value is 0 (sin 0 = +0) or larger than the budget, strict's and faithful's always.
  Judgement judge(uint64_t pos, int column, double steps, double got, double exact,
                  const double* rounded = nullptr) const {
    Judgement j;
    j.error = error_of(got, exact, output_);
    j.allowed = allowed(pos, column, steps, exact);
    const Category cat = j.error.category;
    if (!is_number(cat)) {
      j.failure = cat;
      return j;
    }
    if (rounded && claim_.kind != Claim::Kind::kModel) {
      j.within = within_claim(claim_.kind, got, exact, *rounded, j.error.abs, j.allowed, output_,
                              pos == 0);
      j.failure =
          std::signbit(got) != std::signbit(*rounded) ? Category::kSignMismatch : Category::kNumber;
      return j;
    }
    const bool sign_fails =
        cat == Category::kSignMismatch && (exact == 0.0 || std::fabs(exact) > j.allowed);
    j.within = !sign_fails && within_claim(Claim::Kind::kModel, got, exact, exact, j.error.abs,
                                           j.allowed, output_, pos == 0);
    j.failure = sign_fails ? Category::kSignMismatch : Category::kNumber;
    return j;
  }

  // Adds row `pos` (width values, got and exact) to `figures`; `steps` is the rotations since
  // the last directly computed row. Elements outside the claim go to `worst` when given.
  // `rounded` (optional): the row correctly rounded to the output format, for strict and
  // faithful claims by encoding. Returns the row's largest absolute error (infinite when one
  // element is not a number), and its largest ulp error in `row_max_ulp` when given (what the
  // study's horizons for "faithful" need).
  double add_row(uint64_t pos, double steps, const double* got, const double* exact,
                 Figures& figures, std::vector<Finding>* worst = nullptr,
                 const double* rounded = nullptr, double* row_max_ulp = nullptr) const;

 private:
  void add_element(uint64_t pos, int c, double steps, double got, double exact,
                   const double* rounded, Figures& f, std::vector<Finding>* worst, double& row_max,
                   double& row_ulp, uint64_t (&vacuous)[2]) const;

  Claim claim_;
  Dtype output_;
  std::vector<double> column_frequency_;  // w of each column's pair
  std::vector<double> angle_weight_;      // attention x the recipe's conditioning, per column
  double attention_ = 1;
  std::vector<double> angle_rate_;  // w x weight per column: weighted_angle = pos x this
  double max_angle_rate_ = 0;       // the largest of them
  double vacuous_[2];
};

}  // namespace pev::measure
