#include "peverify/measure/consistency.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>

namespace pev::measure {
namespace {

const ClaimConstants::Consistency& rule() { return claim_constants().consistency; }

// Inserts v into the descending triple (t1, t2, t3): branch-free, so the loop over a row's
// columns vectorises.
inline void insert_top3(float& t1, float& t2, float& t3, float v) {
  t3 = std::max(t3, std::min(t2, v));
  t2 = std::max(t2, std::min(t1, v));
  t1 = std::max(t1, v);
}

// One element's error as a float for the envelope, and as stored for judging: negative above
// the output's resolution (`scale` x the power of two of the exact value), NaN for a NaN or Inf
// value.
inline float element_error(double got, double exact, float scale, float smallest_normal,
                           float& stored) {
  const double d = std::fabs(got - exact);
  const bool finite = d <= DBL_MAX;  // false for NaN and Inf
  const float e = static_cast<float>(finite ? std::min(d, double{FLT_MAX}) : 0.0);
  const float power = std::bit_cast<float>(std::bit_cast<uint32_t>(static_cast<float>(exact)) &
                                           uint32_t{0x7f800000});
  const bool above = e > scale * std::max(power, smallest_normal);
  stored = finite ? (above ? -e : e) : NAN;
  return e;
}

// Rows of one group: each element's error into `errors` (row-major, as the rows), and into the
// columns' three largest errors `top` (three arrays of w). Every element verify reads passes
// here, so it is plain arithmetic the compiler vectorises, a chunk of columns at a time over the
// group's rows so that the three largest stay in registers; compiled for the wide vector units
// too (GCC picks the clone for the processor when the program loads).
__attribute__((target_clones("avx512f", "avx2", "default"))) void group_errors(
    size_t rows, size_t w, const double* __restrict got, const double* __restrict exact,
    float scale, float smallest_normal, float* __restrict errors, float* __restrict top) {
  constexpr size_t kChunk = 32;
  size_t c0 = 0;
  for (; c0 + kChunk <= w; c0 += kChunk) {
    float t1[kChunk], t2[kChunk], t3[kChunk];
    for (size_t c = 0; c < kChunk; ++c) {
      t1[c] = top[c0 + c];
      t2[c] = top[w + c0 + c];
      t3[c] = top[2 * w + c0 + c];
    }
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < kChunk; ++c) {
        const size_t at = r * w + c0 + c;
        insert_top3(t1[c], t2[c], t3[c],
                    element_error(got[at], exact[at], scale, smallest_normal, errors[at]));
      }
    for (size_t c = 0; c < kChunk; ++c) {
      top[c0 + c] = t1[c];
      top[w + c0 + c] = t2[c];
      top[2 * w + c0 + c] = t3[c];
    }
  }
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = c0; c < w; ++c) {
      const size_t at = r * w + c;
      insert_top3(top[c], top[w + c], top[2 * w + c],
                  element_error(got[at], exact[at], scale, smallest_normal, errors[at]));
    }
}

// floor[c] = max(floor[c], v[c]): the judging's pass over every group of a window.
__attribute__((target_clones("avx512f", "avx2", "default"))) void max_into(
    size_t w, float* __restrict floor, const float* __restrict v) {
  for (size_t c = 0; c < w; ++c) floor[c] = std::max(floor[c], v[c]);
}

// Groups whose largest error is below this many times the window's lower bound are not
// examined further: their elements are nowhere near the factor. Above it, each element's ratio
// to its envelope is computed, and the largest is reported as the worst ratio.
constexpr double kExamineAbove = 2.0;

}  // namespace

void ConsistencyFigures::merge(const ConsistencyFigures& o) {
  judged += o.judged;
  unjudged += o.unjudged;
  not_numbers += o.not_numbers;
  inconsistent += o.inconsistent;
  first_inconsistent = std::min(first_inconsistent, o.first_inconsistent);
  worst_ratio = std::max(worst_ratio, o.worst_ratio);
  for (const Finding& f : o.worst) keep_worst(worst, f);
}

int ConsistencyRun::group_rows() { return rule().group_rows; }
int ConsistencyRun::groups_each_side() { return rule().groups_each_side; }

ConsistencyRun::ConsistencyRun(Dtype output, int width, uint64_t first_row, uint64_t start)
    : output_(output),
      width_(width),
      start_(start),
      g_rows_(rule().group_rows),
      each_side_(rule().groups_each_side),
      factor_(rule().factor),
      resolution_(rule().resolution_ulps[static_cast<size_t>(output)]),
      groups_(static_cast<size_t>(2 * rule().groups_each_side + 1)),
      first_group_(static_cast<int64_t>(first_row / static_cast<uint64_t>(rule().group_rows))),
      next_to_judge_(first_group_),
      window_floor_(static_cast<size_t>(width)) {
  for (Group& g : groups_) {
    g.top.resize(3 * static_cast<size_t>(width));
    g.errors.resize(static_cast<size_t>(g_rows_) * static_cast<size_t>(width));
  }
}

void ConsistencyRun::open_group(int64_t g, bool judged) {
  // Every group whose window ends before g is complete: judge it before its slot is reused.
  for (; next_to_judge_ <= current_ &&
         std::max(next_to_judge_ + each_side_, first_group_ + 2 * each_side_) < g;
       ++next_to_judge_)
    judge(next_to_judge_);
  Group& s = slot(g);
  s.rows = 0;
  s.judged = judged;
  std::fill(s.top.begin(), s.top.end(), 0.0f);
  current_ = g;
}

void ConsistencyRun::add(const double* got, const double* exact, uint64_t n, bool judged) {
  const size_t w = static_cast<size_t>(width_);
  // The output's resolution at x is resolution_ ulp_out(x) = scale max(2^floor(log2 |x|),
  // 2^min_exponent): masking away the significand of x (as a float: the test is a guard, and
  // float keeps the loop in one vector width) gives the power of two, so the test costs a few
  // vector operations and needs no exact value kept.
  const FormatTraits f = traits_of(output_);
  const float scale = static_cast<float>(resolution_ * std::ldexp(1.0, 1 - f.precision));
  const float smallest_normal = std::max(std::ldexp(1.0f, f.min_exponent), FLT_MIN);
  for (uint64_t r = 0; r < n;) {
    const int64_t row = current_ < 0
                            ? first_group_ * g_rows_
                            : current_ * g_rows_ + static_cast<int64_t>(slot(current_).rows);
    const int64_t g = row / g_rows_;
    if (g != current_) open_group(g, judged);
    Group& s = slot(g);
    // The rows of this call that fall in the group, at once.
    const uint64_t take = std::min<uint64_t>(n - r, static_cast<uint64_t>(g_rows_) - s.rows);
    group_errors(take, w, got + r * w, exact + r * w, scale, smallest_normal,
                 s.errors.data() + s.rows * w, s.top.data());
    s.rows += static_cast<uint32_t>(take);
    r += take;
  }
}

void ConsistencyRun::judge(int64_t j) {
  Group& g = slot(j);
  if (!g.judged) return;
  const size_t w = static_cast<size_t>(width_);
  // The window keeps its width at the ends of the rows: it moves inwards there, since a window of
  // half the width would judge the first and last rows by too few neighbours (an honest error
  // that drifts over tens of rows would stand out).
  int64_t lo = j - each_side_, hi = j + each_side_;
  if (lo < first_group_) {
    hi += first_group_ - lo;
    lo = first_group_;
  }
  if (hi > current_) {
    lo = std::max(first_group_, lo - (hi - current_));
    hi = current_;
  }
  uint64_t window_rows = 0;
  for (int64_t i = lo; i <= hi; ++i) window_rows += slot(i).rows;
  const uint64_t elements = uint64_t{g.rows} * w;
  if (window_rows < 3) {  // no second largest among the others
    figures_.unjudged += elements;
    return;
  }
  // A lower bound of each column's third largest error in the window: every group's own third
  // largest. Only columns whose largest error in this group exceeds it by kExamineAbove are
  // looked at element by element.
  float* __restrict floor = window_floor_.data();
  std::fill(window_floor_.begin(), window_floor_.end(), 0.0f);
  for (int64_t i = lo; i <= hi; ++i) max_into(w, floor, slot(i).top.data() + 2 * w);
  // NaN and Inf (error NaN here) are never compared, nor counted as consistent: bounded and the
  // oracle fail them.
  uint64_t not_numbers = 0;
  for (size_t i = 0; i < elements; ++i) not_numbers += std::isnan(g.errors[i]);
  figures_.not_numbers += not_numbers;
  figures_.judged += elements - not_numbers;
  for (size_t c = 0; c < w; ++c) {
    if (!(g.top[c] > kExamineAbove * floor[c])) continue;
    float t1 = 0, t2 = 0, t3 = 0;
    for (int64_t i = lo; i <= hi; ++i) {
      const float* top = slot(i).top.data();
      for (int k = 0; k < 3; ++k) insert_top3(t1, t2, t3, top[k * w + c]);
    }
    // The element's envelope is the second largest of the others: the window's third largest
    // for its two largest elements (every other element is below the second largest itself).
    const double envelope = t3;
    for (uint32_t r = 0; r < g.rows; ++r) {
      // Rounding alone is never inconsistent: below the output's resolution at the exact value
      // (a positive error: see add).
      const float e = g.errors[r * w + c];
      if (!(e < 0)) continue;
      const double error = -e;
      const double ratio = envelope > 0 ? error / envelope : INFINITY;
      figures_.worst_ratio = std::max(figures_.worst_ratio, ratio);
      if (!(ratio > factor_)) continue;
      const uint64_t pos = start_ + static_cast<uint64_t>(j * g_rows_) + r;
      ++figures_.inconsistent;
      figures_.first_inconsistent = std::min(figures_.first_inconsistent, pos);
      if (would_keep(figures_.worst, error, factor_ * envelope))
        keep_worst(figures_.worst, {pos, static_cast<int>(c), NAN, NAN, error, factor_ * envelope,
                                    NAN, "inconsistent"});
    }
  }
}

void ConsistencyRun::finish() {
  for (; next_to_judge_ <= current_; ++next_to_judge_) judge(next_to_judge_);
}

}  // namespace pev::measure
