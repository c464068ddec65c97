// bounded: every value finite and within the attention factor (1 for plain tables),
// sin^2 + cos^2 = attention^2 within the claim, and where the layout stores a value twice, the
// two copies equal within what the claim allows one number computed twice (frameworks build them
// as one number, torch.cat((freqs, freqs)) of one angle, but PyTorch's CPU cos gives a vector
// lane and the scalar tail different bits for the same angle: two copies of one angle, each
// evaluated within the claim's share beside the angle's).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "peverify/properties/accumulators.h"
#include "peverify/properties/bounded_rows.h"

namespace pev::properties {
namespace {

// |(s+e_s)^2 + (c+e_c)^2 - att^2| <= 2|s||e_s| + 2|c||e_c| + e_s^2 + e_c^2, plus the evaluation's
// own rounding in double (and att^2's, relative to att^2).
inline double identity_tolerance(double s, double c, double es, double ec, double att) {
  return 2 * (std::fabs(s) * es + std::fabs(c) * ec) + es * es + ec * ec + 0x1p-50 * att * att;
}

// The claim's budget for a value known only through its stored value (internal::allowed_near),
// with the claim kind and output format known to the compiler.
template <Claim::Kind kKind, Dtype kOutput>
inline double allowed_near_as(const Claim& claim, double got, double angle, double steps_term,
                              double bound) {
  const double a = std::fabs(got);
  return claim.allowed(std::min(bound, a + ulp_of(a, kOutput)), angle, steps_term, kOutput);
}

// Whether two stored copies of one value differ by more than two evaluations of one angle may
// under `claim`: the model's share beside the angle twice, one ulp for faithful (both bracket the
// same exact value), nothing for strict. A NaN or Inf in either is the not-finite count's.
inline bool copies_differ(double first, double second, const Claim& claim, Dtype output) {
  if (!std::isfinite(first) || !std::isfinite(second)) return false;
  if (std::bit_cast<uint64_t>(first) == std::bit_cast<uint64_t>(second)) return false;
  const double a = std::max(std::fabs(first), std::fabs(second));
  switch (claim.kind) {
    case Claim::Kind::kModel:
      return std::fabs(first - second) > 2 * claim.allowed(a, 0, 0, output);
    case Claim::Kind::kFaithful:
      return std::fabs(first - second) > ulp_of(a, output);
    case Claim::Kind::kStrict:
      return true;
  }
  return true;
}

// sin^2 + cos^2 = att^2 on the finite pairs of one row; lists the pairs outside the tolerance in
// `bad` and returns how many. It runs on every pair of every table verify reads, so it calls
// nothing and knows the claim kind and format at compile time.
// Pairs a row with no worst fraction yet checks one by one before the cheap test (identity_row).
constexpr int kWarmUpPairs = 16;

template <Claim::Kind kKind, Dtype kOutput>
int identity_row(const Claim& claim_in, double pos, double steps_term, int pairs,
                 const int* __restrict sin_col, const int* __restrict cos_col,
                 const double* __restrict rate, const double* __restrict row, double bound,
                 double att, double& worst_identity, int* __restrict bad) {
  Claim claim = claim_in;
  claim.kind = kKind;
  int n = 0;
  double worst = worst_identity;
  // The pair's own check, in scalar code.
  const auto check = [&](int k) {
    const double s = row[sin_col[k]], c = row[cos_col[k]];
    const double angle = pos * rate[k];
    const double es = allowed_near_as<kKind, kOutput>(claim, s, angle, steps_term, bound);
    const double ec = allowed_near_as<kKind, kOutput>(claim, c, angle, steps_term, bound);
    const double tol = identity_tolerance(s, c, es, ec, att);
    const double dev = std::fabs(s * s + c * c - att * att);
    if (dev > worst * tol) worst = dev / tol;  // false for NaN: not-finite values are counted apart
    if (dev > tol) bad[n++] = k;
  };
  if constexpr (kKind == Claim::Kind::kModel) {
    // For the model, e_s >= C u (|s| + angle) (and e_c likewise), so the tolerance is at least
    // tol_low = 2 C u (s^2 + c^2 + angle (|s| + |c|)): a pair whose deviation is at most tol_low
    // times min(worst, 1) can neither break the identity nor raise the worst fraction, and is
    // settled without its two budgets (in SIMD lanes; the row's worst so far only grows, so the
    // pairs it leaves are at least those the running worst would).
    // A fresh part (verify's blocks each start one) has no worst yet, and a threshold of 0 settles
    // nothing: its last pairs, the lowest frequencies, whose small angles give the largest
    // fractions of the tolerance, are checked one by one first to give it one.
    int rest = pairs;
    for (; rest > 0 && worst == 0 && pairs - rest < kWarmUpPairs; --rest) check(rest - 1);
    thread_local std::vector<int> unsettled;
    unsettled.resize(static_cast<size_t>(pairs));
    const int left =
        bounded_rows::unsettled_pairs({pos, rest, sin_col, cos_col, rate, row,
                                       2 * (claim.c * claim.u), att * att, std::min(worst, 1.0)},
                                      unsettled.data());
    for (int i = 0; i < left; ++i) check(unsettled[static_cast<size_t>(i)]);
  } else {
    for (int k = 0; k < pairs; ++k) check(k);
  }
  worst_identity = worst;
  return n;
}

template <Claim::Kind kKind>
IdentityRow identity_row_for(Dtype output) {
  switch (output) {
    case Dtype::kFloat64:
      return &identity_row<kKind, Dtype::kFloat64>;
    case Dtype::kFloat32:
      return &identity_row<kKind, Dtype::kFloat32>;
    case Dtype::kFloat16:
      return &identity_row<kKind, Dtype::kFloat16>;
    case Dtype::kBFloat16:
      break;
  }
  return &identity_row<kKind, Dtype::kBFloat16>;
}

}  // namespace

int* BoundedCheck::bad_pairs_buffer(size_t pairs) {
  thread_local std::vector<int> bad;
  if (bad.size() < pairs) bad.resize(pairs);
  return bad.data();
}

void BoundedCheck::Part::merge(const Part& o) {
  checked += o.checked;
  violations += o.violations;
  not_finite += o.not_finite;
  nan += o.nan;
  out_of_range += o.out_of_range;
  identity += o.identity;
  copies_differ += o.copies_differ;
  worst_identity = std::max(worst_identity, o.worst_identity);
  max_abs_value = std::max(max_abs_value, o.max_abs_value);
  first_violation = std::min(first_violation, o.first_violation);
  for (const Finding& f : o.worst) measure::keep_worst(worst, f);
}

BoundedCheck::BoundedCheck(const UnderTest& ut, const TableSpec& spec, const PositionMap* map)
    : ut_(ut),
      spec_(spec),
      map_(map),
      judge_(spec, ut.claim(), ut.output()),
      cols_(internal::pair_columns(spec)),
      bound_(internal::value_bound(spec, ut.output())),
      att_(attention_factor(spec)),
      claim_(ut.claim()) {
  for (size_t k = 0; k < cols_.size(); ++k) {
    if (cols_[k].sin < 0 || cols_[k].cos < 0) continue;
    sin_.push_back(cols_[k].sin);
    cos_.push_back(cols_[k].cos);
    rate_.push_back(judge_.weighted_angle(1, cols_[k].sin));
  }
  const int half = spec.d_model / 2;
  for (int k = 0; k < half; ++k) {
    const ColumnsOfPair c = columns_of_pair(spec.layout, half, k);
    for (const int* copy : {c.sin, c.cos})
      if (copy[0] >= 0 && copy[1] >= 0) copies_.emplace_back(copy[0], copy[1]);
  }
  switch (claim_.kind) {
    case Claim::Kind::kModel:
      identity_row_ = identity_row_for<Claim::Kind::kModel>(ut.output());
      break;
    case Claim::Kind::kFaithful:
      identity_row_ = identity_row_for<Claim::Kind::kFaithful>(ut.output());
      break;
    case Claim::Kind::kStrict:
      identity_row_ = identity_row_for<Claim::Kind::kStrict>(ut.output());
      break;
  }
}

void BoundedCheck::add(Part& p, uint64_t first, uint64_t n, const double* rows,
                       const double* exact) const {
  using internal::allowed_near;
  const int width = table_width(spec_);
  uint64_t index = 0;
  const auto violation = [&](uint64_t pos, Finding f) {
    ++p.violations;
    p.first_violation = std::min(p.first_violation, map_ ? index : pos);
    if (map_) {
      f.row = map_->row(index);
      map_->name_stream(f);
    }
    if (measure::would_keep(p.worst, f.error, f.allowed)) measure::keep_worst(p.worst, f);
  };
  for (uint64_t r = 0; r < n; ++r) {
    index = first + r;
    const uint64_t pos = map_ ? map_->position(index) : spec_.start + first + r;
    const double* row = rows + r * width;
    // The values: a branch-free scan first, the rare violations named after.
    const bounded_rows::ValueScan scan = bounded_rows::scan_values(row, static_cast<size_t>(width));
    const double row_max = scan.max_abs;
    const bool row_finite = scan.finite;
    p.checked += static_cast<uint64_t>(width);
    if (row_finite) p.max_abs_value = std::max(p.max_abs_value, row_max);
    if (!row_finite || row_max > bound_) {
      for (int c = 0; c < width; ++c) {
        const bool finite = std::isfinite(row[c]);
        if (finite && std::fabs(row[c]) <= bound_) continue;
        if (finite) p.max_abs_value = std::max(p.max_abs_value, std::fabs(row[c]));
        p.not_finite += !finite;
        p.nan += std::isnan(row[c]);
        p.out_of_range += finite;
        violation(pos, {pos, c, row[c], std::clamp(row[c], -bound_, bound_),
                        std::isnan(row[c]) ? NAN : std::fabs(row[c]) - bound_, 0, 0,
                        finite ? fmt::format("out of [-{0:.7g}, {0:.7g}]", bound_)
                               : std::string(std::isnan(row[c]) ? "nan" : "inf")});
      }
    }
    for (const auto& [first_copy, second_copy] : copies_) {
      if (!copies_differ(row[first_copy], row[second_copy], claim_, ut_.output())) continue;
      ++p.copies_differ;
      // The copy farther from the exact value is named, where the exact values are at hand.
      const double* x = exact ? exact + r * width : nullptr;
      const bool first_wrong = x && std::fabs(row[first_copy] - x[first_copy]) >
                                        std::fabs(row[second_copy] - x[second_copy]);
      const int named = first_wrong ? first_copy : second_copy;
      const int other = first_wrong ? second_copy : first_copy;
      violation(pos,
                {pos, named, row[named], row[other], std::fabs(row[named] - row[other]), 0, 0,
                 fmt::format("{}{}: the layout holds one number twice", kDifferingCopy, other)});
    }
    const double steps = static_cast<double>(ut_.steps_since_direct(pos));
    const int bad =
        identity_row_(claim_, static_cast<double>(pos), steps * att_, static_cast<int>(sin_.size()),
                      sin_.data(), cos_.data(), rate_.data(), row, bound_, att_, p.worst_identity,
                      bad_pairs_buffer(sin_.size()));
    p.identity += static_cast<uint64_t>(bad);
    for (int i = 0; i < bad; ++i) {
      const size_t k = static_cast<size_t>(bad_pairs_buffer(0)[i]);
      const double s = row[sin_[k]], co = row[cos_[k]];
      const double es = allowed_near(judge_, pos, sin_[k], steps, s, bound_);
      const double ec = allowed_near(judge_, pos, cos_[k], steps, co, bound_);
      const double tol = identity_tolerance(s, co, es, ec, att_);
      violation(pos, {pos, sin_[k], s * s + co * co, att_ * att_,
                      std::fabs(s * s + co * co - att_ * att_), tol, 0, "sin^2+cos^2"});
    }
  }
}

PropertyVerdict BoundedCheck::verdict(const Part& p) const {
  PropertyVerdict v;
  v.property = "bounded";
  v.checked = p.checked;
  v.worst = p.worst;
  v.holds = p.violations == 0;
  v.figures["violations"] = static_cast<double>(p.violations);
  v.figures["not_finite"] = static_cast<double>(p.not_finite);
  if (!copies_.empty()) v.figures["copies_differ"] = static_cast<double>(p.copies_differ);
  v.figures["max_abs_value"] = p.max_abs_value;
  // Comparable across tables of different attention factors (the suite merges verdicts of
  // several): |value| over the bound, 1 + the overshoot.
  v.figures["max_value_over_bound"] = p.max_abs_value / bound_;
  v.figures["identity_worst_fraction_of_tolerance"] = p.worst_identity;
  const bool located = map_ && p.first_violation != kNoPosition;
  if (!v.holds)
    v.figures["first_violation_position"] =
        static_cast<double>(located ? map_->position(p.first_violation) : p.first_violation);
  if (v.holds) {
    v.summary = fmt::format(
        "all {} values finite and in [-{:.7g}, {:.7g}]; sin^2+cos^2-{} at most {:.3g} of its "
        "tolerance{}",
        p.checked, bound_, bound_, att_ == 1 ? "1" : "att^2", p.worst_identity,
        copies_.empty() ? ""
                        : "; both copies of every value agree (within one value computed twice "
                          "under the claim)");
    return v;
  }
  // What failed, each kind counted: "1 NaN", "2 out of [-1, 1], 1 differing from its copy".
  std::vector<std::string> kinds;
  const auto kind = [&](uint64_t n, const std::string& what) {
    if (n) kinds.push_back(fmt::format("{} {}", n, what));
  };
  kind(p.nan, "NaN");
  kind(p.not_finite - p.nan, "Inf");
  kind(p.out_of_range, fmt::format("out of [-{0:.7g}, {0:.7g}]", bound_));
  kind(p.identity, fmt::format("pairs off sin^2+cos^2 = {}", att_ == 1 ? "1" : "att^2"));
  kind(p.copies_differ, "differing from the other copy of their value");
  v.summary = fmt::format(
      "{} among {} values (largest finite |value| {:.9g}); the first at {}", fmt::join(kinds, ", "),
      p.checked, p.max_abs_value,
      located ? map_->name(p.first_violation) : fmt::format("position {}", p.first_violation));
  return v;
}

PropertyVerdict check_bounded(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  const BoundedCheck check(ut, spec);
  BoundedCheck::Part part;
  internal::for_each_chunk(ut, spec, count,
                           [&](uint64_t first, const std::vector<double>& t, uint64_t n) {
                             check.add(part, first, n, t.data());
                           });
  return check.verdict(part);
}

}  // namespace pev::properties
