// The pass over a sinusoidal table (docs/features.md §16): every element against its exact value
// (oracle), every value a sine or cosine can be (bounded), a value the layout stores twice stored
// the same (copies), and every element against its column's own errors along its axis
// (consistent), so that a corruption inside a worst-case budget still fails.
#include "peverify/verify/sinusoids/sinusoid_verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <tuple>

#include "peverify/measure/consistency.h"
#include "peverify/verify/sinusoids/sinusoid_diagnosis.h"
#include "peverify/verify/sinusoids/sinusoid_judge.h"

namespace pev::verify::sinusoids {
namespace {

using sinusoids::ExactValues;

std::vector<double> row_positions(const AxisPositions& p, uint64_t row) {
  std::vector<double> out;
  for (const auto& axis : p.axes) out.push_back(axis[row]);
  return out;
}

// For each column, the first column of its row holding the same value (rope-cos-pairs' two
// copies), or -1.
std::vector<int> copy_of(const SinusoidTable& t) {
  std::vector<int> first(t.columns.size(), -1);
  std::map<std::tuple<int, int, int>, int> seen;
  for (int c = 0; c < t.width(); ++c) {
    const SinusoidColumn& col = t.columns[static_cast<size_t>(c)];
    if (col.wave == Wave::kZero) continue;
    const auto key = std::make_tuple(static_cast<int>(col.wave), col.axis, col.frequency);
    const auto [it, fresh] = seen.emplace(key, c);
    if (!fresh) first[static_cast<size_t>(c)] = it->second;
  }
  return first;
}

// consistent: each axis's columns along the rows in order of that axis's positions, where an
// honest table's errors vary smoothly (measure/consistency.h).
SinusoidProperty consistency(const SinusoidInput& in, const SinusoidDeclaration& d,
                             const ExactValues& exact) {
  SinusoidProperty p("consistent");
  const SinusoidTable& t = d.table;
  uint64_t judged = 0;
  double worst_ratio = 0;
  for (int a = 0; a < t.axes; ++a) {
    std::vector<int> cols;
    for (int c = 0; c < t.width(); ++c)
      if (t.columns[static_cast<size_t>(c)].axis == a &&
          t.columns[static_cast<size_t>(c)].wave != Wave::kZero)
        cols.push_back(c);
    if (cols.empty()) continue;
    std::vector<uint64_t> order(in.rows);
    std::iota(order.begin(), order.end(), uint64_t{0});
    const std::vector<double>& xs = d.positions.axes[static_cast<size_t>(a)];
    std::stable_sort(order.begin(), order.end(),
                     [&](uint64_t x, uint64_t y) { return xs[x] < xs[y]; });
    const size_t w = cols.size();
    std::vector<double> got(in.rows * w), ex(in.rows * w);
    for (uint64_t i = 0; i < in.rows; ++i)
      for (size_t k = 0; k < w; ++k) {
        got[i * w + k] = in.values[order[i] * in.width + static_cast<uint64_t>(cols[k])];
        ex[i * w + k] = exact.at(order[i], cols[k]).exact;
      }
    measure::ConsistencyRun run(in.dtype, static_cast<int>(w), 0, 0);
    run.add(got.data(), ex.data(), in.rows, true);
    run.finish();
    const measure::ConsistencyFigures& f = run.figures();
    judged += f.judged;
    worst_ratio = std::max(worst_ratio, f.worst_ratio);
    p.failed += f.inconsistent;
    for (const measure::Finding& x : f.worst) {
      const uint64_t row = order[x.pos];
      const int column = cols[static_cast<size_t>(x.column)];
      const double g = in.values[row * in.width + static_cast<uint64_t>(column)];
      const double e = exact.at(row, column).exact;
      if (p.worst.size() < kWorstFindings)
        p.worst.push_back({row, column, row_positions(d.positions, row), g, e, x.error, x.allowed,
                           measure::floored_ulps(x.error, e, in.dtype),
                           "stands out from its column"});
    }
  }
  p.holds = p.failed == 0;
  p.judged = judged;
  const auto& k = claim_constants().consistency;
  p.note = p.holds ? fmt::format(
                         "every one of {} elements fits its column's own errors along its "
                         "axis ({}, fails above {:g}x)",
                         judged,
                         worst_ratio > 0 ? fmt::format("worst {:.3g}x its envelope", worst_ratio)
                                         : std::string("every error within the output's rounding"),
                         k.factor)
                   : fmt::format(
                         "{} of {} elements stand out from their column's own errors "
                         "(above {:g}x the envelope)",
                         p.failed, judged, k.factor);
  return p;
}

}  // namespace

void keep_worst(SinusoidProperty& p, SinusoidFinding f) {
  const auto badness = [](const SinusoidFinding& x) {
    return std::isfinite(x.error) ? (x.allowed > 0 ? x.error / x.allowed : x.error * 1e300)
                                  : INFINITY;
  };
  if (p.worst.size() == kWorstFindings && badness(f) <= badness(p.worst.back())) return;
  if (p.worst.size() == kWorstFindings) p.worst.pop_back();
  const auto at =
      std::upper_bound(p.worst.begin(), p.worst.end(), f,
                       [&](const auto& a, const auto& b) { return badness(a) > badness(b); });
  p.worst.insert(at, std::move(f));
}

void record_failure(SinusoidProperty& p, SinusoidFinding f) {
  ++p.failed;
  p.holds = false;
  keep_worst(p, std::move(f));
}

bool SinusoidVerdict::holds() const {
  return std::all_of(properties.begin(), properties.end(), [](const auto& p) { return p.holds; });
}

SinusoidVerdict verify_sinusoid(const SinusoidInput& in, const SinusoidDeclaration& d,
                                const std::vector<SinusoidAlternative>& alternatives,
                                const Claim& claim, int threads) {
  const auto start = std::chrono::steady_clock::now();
  const SinusoidTable& t = d.table;
  SinusoidVerdict v(in, t.kind, d.what, d.positions_text, claim);
  v.elements = in.rows * in.width;
  const ExactValues exact(t, d.positions, in.dtype, threads);
  SinusoidProperty oracle("oracle"), bounded("bounded"), copies("copies");
  const std::vector<int> copy = copy_of(t);
  const bool has_copies = std::any_of(copy.begin(), copy.end(), [](int c) { return c >= 0; });
  for (uint64_t r = 0; r < in.rows; ++r) {
    for (int c = 0; c < t.width(); ++c) {
      const SinusoidColumn& col = t.columns[static_cast<size_t>(c)];
      const double got = in.values[r * in.width + static_cast<uint64_t>(c)];
      const ExactValues::Value e = exact.at(r, c);
      const sinusoids::Judged j = sinusoids::judge(got, e, claim, in.dtype);
      const auto finding = [&](double expected, double error, double allowed, std::string what) {
        return SinusoidFinding{r,
                               c,
                               row_positions(d.positions, r),
                               got,
                               expected,
                               error,
                               allowed,
                               measure::floored_ulps(error, expected, in.dtype),
                               std::move(what)};
      };
      if (std::isfinite(got)) {
        v.max_abs_error = std::max(v.max_abs_error, j.error);
        v.max_ulp = std::max(v.max_ulp, measure::floored_ulps(j.error, e.exact, in.dtype));
      }
      if (!j.ok) record_failure(oracle, finding(e.exact, j.error, j.allowed, j.what));
      const double limit = col.wave == Wave::kZero ? 0.0 : 1.0;
      if (!(std::fabs(got) <= limit))
        record_failure(bounded, finding(limit, std::fabs(got) - limit, 0,
                                        col.wave == Wave::kZero ? "the pad column is not 0"
                                                                : "outside [-1, 1]"));
      if (const int first = copy[static_cast<size_t>(c)]; first >= 0) {
        const double other = in.values[r * in.width + static_cast<uint64_t>(first)];
        if (!measure::same_encoding(got, other))
          record_failure(copies, finding(other, std::fabs(got - other), 0,
                                         fmt::format("differs from its copy in column {}", first)));
      }
    }
  }
  oracle.judged = bounded.judged = v.elements;
  oracle.note =
      fmt::format("max abs error {:.3g}, max {:.3g} ulp; {} of {} elements outside the budget ({})",
                  v.max_abs_error, v.max_ulp, oracle.failed, v.elements, claim.describe());
  bounded.note = bounded.holds
                     ? fmt::format("all {} values finite and in [-1, 1]{}", v.elements,
                                   t.columns.back().wave == Wave::kZero ? ", the pad column 0" : "")
                     : fmt::format("{} values outside their range", bounded.failed);
  v.properties.push_back(std::move(bounded));
  v.properties.push_back(std::move(oracle));
  if (has_copies) {
    copies.judged = v.elements;
    copies.note = copies.holds ? "each value the layout stores twice is stored the same"
                               : fmt::format("{} values differ from their copy", copies.failed);
    v.properties.push_back(std::move(copies));
  }
  v.properties.push_back(consistency(in, d, exact));
  if (!v.holds()) v.diagnosis = sinusoids::diagnose(in, d, alternatives, claim, v, threads);
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return v;
}

}  // namespace pev::verify::sinusoids
