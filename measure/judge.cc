#include "measure/judge.h"

#include <algorithm>
#include <cmath>

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
  max_allowed = std::max(max_allowed, o.max_allowed);
  max_weighted_angle = std::max(max_weighted_angle, o.max_weighted_angle);
  max_abs = std::max(max_abs, o.max_abs);
  sum_abs += o.sum_abs;
  max_ulp = std::max(max_ulp, o.max_ulp);
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
  for (int c = 0; c < table_width(spec); ++c)
    max_angle_rate_ = std::max(max_angle_rate_, column_frequency_[c] * angle_weight_[c]);
  vacuous_[0] = claim_constants().vacuous_budget[0];
  vacuous_[1] = claim_constants().vacuous_budget[1];
}

double Judge::add_row(uint64_t pos, double steps, const double* got, const double* exact,
                      Figures& f, std::vector<Finding>* worst, const double* rounded) const {
  double row_max = 0;
  const int width = static_cast<int>(column_frequency_.size());
  f.elements += static_cast<uint64_t>(width);
  for (int c = 0; c < width; ++c) {
    const Judgement j = judge(pos, c, steps, got[c], exact[c], rounded ? rounded + c : nullptr);
    f.max_allowed = std::max(f.max_allowed, j.allowed);
    for (int v = 0; v < 2; ++v)
      if (j.allowed >= vacuous_[v]) {
        ++f.vacuous[v];
        f.first_vacuous_pos[v] = std::min(f.first_vacuous_pos[v], pos);
      }
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
      f.sum_abs += j.error.abs;
      row_max = std::max(row_max, j.error.abs);
      const double fraction = j.allowed > 0 ? j.error.abs / j.allowed : INFINITY;
      if (fraction > f.worst_fraction) {
        f.worst_fraction = fraction;
        f.worst_pos = pos;
        f.worst_column = c;
      }
    } else {
      row_max = INFINITY;
    }
    if (!j.within) {
      ++f.over_claim;
      f.failed_sign += j.failure == Category::kSignMismatch;
      f.failed_value += j.failure == Category::kNumber;
      const double error = is_number(j.error.category) ? j.error.abs : NAN;
      if (worst && would_keep(*worst, error, j.allowed))
        keep_worst(*worst, {pos, c, got[c], exact[c], error, j.allowed, j.error.ulp,
                            std::string(name_of(j.failure))});
    }
  }
  f.max_weighted_angle = std::max(f.max_weighted_angle, static_cast<double>(pos) * max_angle_rate_);
  return row_max;
}

}  // namespace pev::measure
