#include "peverify/measure/judge.h"

#include <algorithm>
#include <bit>
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

namespace {

// 1 / ulp_of(x, t), exactly (a power of two), from the exponent bits: a multiply is cheaper than
// a division on every element. 0 where the inverse would overflow (float64's subnormal quanta).
inline double inverse_ulp_of(double x, Dtype t) {
  const FormatTraits f = traits_of(t);
  const int biased = static_cast<int>((std::bit_cast<uint64_t>(x) >> 52) & 0x7ff);
  const int e = (biased == 0 || biased == 0x7ff) ? f.min_exponent : biased - 1023;
  const int q = std::max(e, f.min_exponent) - f.precision + 1;
  return -q > 1023 ? 1.0 / ulp_of(x, t)
                   : std::bit_cast<double>(static_cast<uint64_t>(1023 - q) << 52);
}

// What the fast path of add_row keeps for one row.
struct RowFigures {
  double max_abs = 0, sum_abs = 0, max_ulp = 0, max_ulp_floored = 0, worst_fraction = 0;
  int worst_column = -1;
  uint64_t vacuous0 = 0, vacuous1 = 0;
  int others = 0;  // elements left for the slow path, listed in `other`
};

// The fast path of add_row for one claim kind and output format, both known to the compiler: a
// finite value of the exact value's sign within the claim (for strict and faithful judged by
// encoding: the correctly rounded encoding itself). Almost every element of a table is one, and
// this runs for every element peverify judges, so it calls nothing, keeps its figures in
// registers and lists the other elements for the slow path.
template <Claim::Kind kKind, Dtype kOutput, bool kByEncoding>
RowFigures fast_row(const Claim& claim_in, double pos, double steps_term, int width,
                    const double* __restrict got, const double* __restrict exact,
                    const double* __restrict rounded, const double* __restrict angle_rate,
                    double attention, double vacuous0, double vacuous1, double worst_so_far,
                    int* __restrict other) {
  Claim claim = claim_in;
  claim.kind = kKind;  // a constant: Claim::allowed's switch folds away
  RowFigures r;
  double worst_fraction = worst_so_far, max_abs = 0, sum_abs = 0, max_ulp = 0, max_floored = 0;
  const double floor_inverse_ulp = inverse_ulp_of(kUlpFloor, kOutput);
  int worst_column = -1, others = 0;
  uint64_t vacuous_0 = 0, vacuous_1 = 0;
  // The model's budget is output_ulps ulp(x) + C u |x| + C u (angle + steps). Its last term, t,
  // is known without x; low = C u |x| + t <= budget <= t + top, top bounding the terms of x
  // (|x| <= the attention factor). Most elements are settled by these bounds; the budget itself
  // is computed only where they do not decide (the slow path, a vacuous threshold, a new worst).
  const double cu = claim.c * claim.u;
  const double top = claim.output_ulps * ulp_of(attention, kOutput) + cu * attention;
  for (int c = 0; c < width; ++c) {
    const double g = got[c], x = exact[c];
    const double angle = pos * angle_rate[c];
    const double d = std::fabs(g - x);
    const double inverse_ulp = inverse_ulp_of(x, kOutput);
    bool fast = std::signbit(g) == std::signbit(x);
    double low = 0, t = 0;
    if constexpr (kKind == Claim::Kind::kModel) {
      t = cu * (angle + steps_term);
      // The whole budget, the output's ulp (a power of two: 1 / inverse_ulp is exact) included,
      // lowered by 2^-50 of itself so that it stays below Claim::allowed whatever order that
      // sums the terms in: a 16-bit output's rounding no longer sends its elements to the slow
      // path (it did for most of them, the output term being missing from the bound).
      low = (claim.output_ulps / inverse_ulp + cu * std::fabs(x) + t) * (1 - 0x1p-50);
      fast = fast && d <= low;
    } else if constexpr (kByEncoding) {
      fast = fast && same_encoding(g, rounded[c]);
    } else {
      fast = fast && d <= claim.allowed(x, angle, steps_term, kOutput);
    }
    if (!fast) {
      other[others++] = c;
      continue;
    }
    max_abs = std::max(max_abs, d);
    sum_abs += d;
    max_ulp = std::max(max_ulp, d * inverse_ulp);
    max_floored =
        std::max(max_floored, d * (std::fabs(x) < kUlpFloor ? floor_inverse_ulp : inverse_ulp));
    if constexpr (kKind == Claim::Kind::kModel) {
      // A budget this wide is at least t; it is below t + top.
      if (t + top >= vacuous0) {
        const double a = claim.allowed(x, angle, steps_term, kOutput);
        vacuous_0 += a >= vacuous0;
        vacuous_1 += a >= vacuous1;
      }
      if (d > worst_fraction * low) {  // d / budget may exceed the worst so far
        const double a = claim.allowed(x, angle, steps_term, kOutput);
        if (d > worst_fraction * a) {
          worst_fraction = d / a;
          worst_column = c;
        }
      }
    } else {  // strict and faithful budgets are under an ulp: never vacuous
      const double a = claim.allowed(x, angle, steps_term, kOutput);
      if (d > worst_fraction * a) {
        worst_fraction = d / a;
        worst_column = c;
      }
    }
  }
  r.worst_fraction = worst_fraction;
  r.worst_column = worst_column;
  r.max_abs = max_abs;
  r.sum_abs = sum_abs;
  r.max_ulp = max_ulp;
  r.max_ulp_floored = max_floored;
  r.vacuous0 = vacuous_0;
  r.vacuous1 = vacuous_1;
  r.others = others;
  return r;
}

template <Claim::Kind kKind, bool kByEncoding>
auto fast_row_for(Dtype output) {
  switch (output) {
    case Dtype::kFloat64:
      return &fast_row<kKind, Dtype::kFloat64, kByEncoding>;
    case Dtype::kFloat32:
      return &fast_row<kKind, Dtype::kFloat32, kByEncoding>;
    case Dtype::kFloat16:
      return &fast_row<kKind, Dtype::kFloat16, kByEncoding>;
    case Dtype::kBFloat16:
      break;
  }
  return &fast_row<kKind, Dtype::kBFloat16, kByEncoding>;
}

}  // namespace

double Judge::add_row(uint64_t pos, double steps, const double* got, const double* exact,
                      Figures& f, std::vector<Finding>* worst, const double* rounded,
                      double* row_max_ulp) const {
  const int width = static_cast<int>(column_frequency_.size());
  const bool by_encoding = rounded && claim_.kind != Claim::Kind::kModel;
  f.elements += static_cast<uint64_t>(width);
  thread_local std::vector<int> others;
  others.resize(static_cast<size_t>(width));
  const auto row = claim_.kind == Claim::Kind::kModel
                       ? fast_row_for<Claim::Kind::kModel, false>(output_)
                   : claim_.kind == Claim::Kind::kStrict
                       ? (by_encoding ? fast_row_for<Claim::Kind::kStrict, true>(output_)
                                      : fast_row_for<Claim::Kind::kStrict, false>(output_))
                       : (by_encoding ? fast_row_for<Claim::Kind::kFaithful, true>(output_)
                                      : fast_row_for<Claim::Kind::kFaithful, false>(output_));
  const RowFigures r = row(claim_, static_cast<double>(pos), steps * attention_, width, got, exact,
                           rounded, angle_rate_.data(), attention_, vacuous_[0], vacuous_[1],
                           f.worst_fraction, others.data());
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
  uint64_t vacuous[2] = {r.vacuous0, r.vacuous1};
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
