#include "peverify/measure/judge.h"

#include <algorithm>
#include <cmath>

#include "peverify/measure/judge_row.h"

namespace pev::measure {
namespace {

double ratio(double error, double allowed) {
  if (std::isnan(error)) return INFINITY;
  return allowed > 0 ? error / allowed : (error > 0 ? INFINITY : 0.0);
}
double ratio(const Finding& x) { return ratio(x.error, x.allowed); }

}  // namespace

bool would_keep(const std::vector<Finding>& worst, double error, double allowed, size_t limit) {
  return worst.size() < limit || ratio(error, allowed) > ratio(worst.back());
}

void keep_worst(std::vector<Finding>& worst, const Finding& f, size_t limit) {
  const double r = ratio(f);
  if (worst.size() >= limit && r <= ratio(worst.back())) return;
  auto it =
      std::find_if(worst.begin(), worst.end(), [&](const Finding& x) { return ratio(x) < r; });
  worst.insert(it, f);
  if (worst.size() > limit) worst.pop_back();
}

double Figures::max_abs_or_inf() const { return not_numbers() ? INFINITY : max_abs; }
double Figures::max_ulp_or_inf() const { return not_numbers() ? INFINITY : max_ulp; }

void Figures::merge(const Figures& o) {
  elements += o.elements;
  nan += o.nan;
  inf += o.inf;
  sign_mismatch += o.sign_mismatch;
  over_claim += o.over_claim;
  failed_sign += o.failed_sign;
  failed_value += o.failed_value;
  max_weighted_angle = std::max(max_weighted_angle, o.max_weighted_angle);
  max_abs = std::max(max_abs, o.max_abs);
  sum_abs += o.sum_abs;
  max_ulp = std::max(max_ulp, o.max_ulp);
  max_ulp_floored = std::max(max_ulp_floored, o.max_ulp_floored);
  if (o.worst_fraction > worst_fraction) {
    worst_fraction = o.worst_fraction;
    worst_pos = o.worst_pos;
    worst_column = o.worst_column;
  }
  for (int i = 0; i < 2; ++i) {
    vacuous[i] += o.vacuous[i];
    first_vacuous_pos[i] = std::min(first_vacuous_pos[i], o.first_vacuous_pos[i]);
  }
}

Judge::Judge(const TableSpec& spec, const Claim& claim, Dtype output)
    : claim_(claim),
      output_(output),
      column_frequency_(table_width(spec)),
      angle_weight_(table_width(spec), 1.0),
      attention_(attention_factor(spec)) {
  std::vector<double> w(spec.d_model / 2);
  for (int k = 0; k < spec.d_model / 2; ++k) w[k] = frequency(spec, k);
  for (int c = 0; c < table_width(spec); ++c) column_frequency_[c] = w[column_at(spec, c).pair];
  if (!is_plain(spec)) {
    const std::vector<PairConditioning> k = recipe_conditioning(spec.rope, spec.base, spec.d_model);
    for (int c = 0; c < table_width(spec); ++c) {
      const PairConditioning& p = k[column_at(spec, c).pair];
      const double recipe = claim.c > 0 ? 1 + p.gain + p.extra / claim.c : 1;
      angle_weight_[c] = attention_ * recipe;
    }
  }
  // A recurrence over pairs: pair j's angle carries j more roundings (Claim::pair_step_ulps).
  if (claim.pair_step_ulps > 0 && claim.c > 0)
    for (int c = 0; c < table_width(spec); ++c)
      angle_weight_[c] += attention_ * claim.pair_step_ulps * column_at(spec, c).pair / claim.c;
  angle_rate_.resize(column_frequency_.size());
  for (size_t c = 0; c < angle_rate_.size(); ++c) {
    angle_rate_[c] = column_frequency_[c] * angle_weight_[c];
    max_angle_rate_ = std::max(max_angle_rate_, angle_rate_[c]);
  }
  vacuous_[0] = claim_constants().vacuous_budget[0];
  vacuous_[1] = claim_constants().vacuous_budget[1];
}

// One element the fast path of add_row does not settle: not a finite number, a sign mismatch,
// outside the claim, or an encoding claim the value does not meet by equality.
void Judge::add_element(uint64_t pos, int c, double steps, double got, double exact,
                        const double* rounded, Figures& f, std::vector<Finding>* worst,
                        double& row_max, double& row_ulp, uint64_t (&vacuous)[2]) const {
  const Judgement j = judge(pos, c, steps, got, exact, rounded);
  vacuous[0] += j.allowed >= vacuous_[0];
  vacuous[1] += j.allowed >= vacuous_[1];
  switch (j.error.category) {
    case Category::kNaN:
      ++f.nan;
      break;
    case Category::kInf:
      ++f.inf;
      break;
    case Category::kSignMismatch:
      ++f.sign_mismatch;
      break;
    case Category::kNumber:
      break;
  }
  if (is_number(j.error.category)) {
    f.max_abs = std::max(f.max_abs, j.error.abs);
    f.max_ulp = std::max(f.max_ulp, j.error.ulp);
    f.max_ulp_floored = std::max(f.max_ulp_floored, floored_ulps(j.error.abs, exact, output_));
    f.sum_abs += j.error.abs;
    row_max = std::max(row_max, j.error.abs);
    row_ulp = std::max(row_ulp, j.error.ulp);
    const double fraction = j.allowed > 0 ? j.error.abs / j.allowed : INFINITY;
    if (fraction > f.worst_fraction) {
      f.worst_fraction = fraction;
      f.worst_pos = pos;
      f.worst_column = c;
    }
  } else {
    row_max = row_ulp = INFINITY;
  }
  if (!j.within) {
    ++f.over_claim;
    f.failed_sign += j.failure == Category::kSignMismatch;
    f.failed_value += j.failure == Category::kNumber;
    const double error = is_number(j.error.category) ? j.error.abs : NAN;
    if (worst && would_keep(*worst, error, j.allowed))
      keep_worst(*worst, {pos, c, got, exact, error, j.allowed, floored_ulps(error, exact, output_),
                          std::string(name_of(j.failure))});
  }
}

double Judge::add_row(uint64_t pos, double steps, const double* got, const double* exact,
                      Figures& f, std::vector<Finding>* worst, const double* rounded,
                      double* row_max_ulp) const {
  const int width = static_cast<int>(column_frequency_.size());
  const bool by_encoding = rounded && claim_.kind != Claim::Kind::kModel;
  f.elements += static_cast<uint64_t>(width);
  thread_local std::vector<int> others;
  others.resize(static_cast<size_t>(width));
  const row::Input in{.claim = &claim_,
                      .output = output_,
                      .by_encoding = by_encoding,
                      .pos = static_cast<double>(pos),
                      .steps_term = steps * attention_,
                      .width = width,
                      .got = got,
                      .exact = exact,
                      .rounded = rounded,
                      .angle_rate = angle_rate_.data(),
                      .attention = attention_,
                      .vacuous = {vacuous_[0], vacuous_[1]},
                      .worst_so_far = f.worst_fraction};
  const row::Figures r = row::judge_fast(in, others.data());
  if (r.worst_column >= 0 && r.worst_fraction > f.worst_fraction) {
    f.worst_fraction = r.worst_fraction;
    f.worst_pos = pos;
    f.worst_column = r.worst_column;
  }
  f.max_abs = std::max(f.max_abs, r.max_abs);
  f.sum_abs += r.sum_abs;
  f.max_ulp = std::max(f.max_ulp, r.max_ulp);
  f.max_ulp_floored = std::max(f.max_ulp_floored, r.max_ulp_floored);
  double row_max = r.max_abs, row_ulp = r.max_ulp;
  uint64_t vacuous[2] = {r.vacuous[0], r.vacuous[1]};
  for (int i = 0; i < r.others; ++i) {
    const int c = others[static_cast<size_t>(i)];
    add_element(pos, c, steps, got[c], exact[c], rounded ? rounded + c : nullptr, f, worst, row_max,
                row_ulp, vacuous);
  }
  for (int v = 0; v < 2; ++v)
    if (vacuous[v]) {
      f.vacuous[v] += vacuous[v];
      f.first_vacuous_pos[v] = std::min(f.first_vacuous_pos[v], pos);
    }
  f.max_weighted_angle = std::max(f.max_weighted_angle, static_cast<double>(pos) * max_angle_rate_);
  if (row_max_ulp) *row_max_ulp = row_ulp;
  return row_max;
}

}  // namespace pev::measure
