#include "core/sleef/vector_testutil.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "core/registry.h"
#include "oracle/engine.h"
#include "oracle/error_measure.h"
#include "oracle/table.h"

namespace pev::core::testutil {
namespace {

// The exact values of one block, interleaved, with w_k in double for the angles.
struct ExactBlock {
  oracle::ExactTable table;
  std::vector<double> w;
};

// Exact tables cost most of a test's time: each (d, base, schedule, start, count) is computed
// once per process, whatever layout or entry asks.
const ExactBlock& exact_block(const TableSpec& spec, uint64_t count) {
  using Key = std::tuple<int, double, Schedule, uint64_t, uint64_t>;
  static std::mutex mutex;
  static std::map<Key, std::unique_ptr<ExactBlock>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<ExactBlock>& slot =
      cache[Key{spec.d_model, spec.base, spec.schedule, spec.start, count}];
  if (!slot) {
    TableSpec interleaved = spec;
    interleaved.layout = Layout::kInterleaved;
    slot = std::make_unique<ExactBlock>();
    // `exact` does not depend on the engine's target format.
    const auto engine = oracle::make_mpfr_engine(interleaved, Dtype::kFloat32);
    slot->table = oracle::compute_table(*engine, interleaved, count);
    for (int k = 0; k < spec.d_model / 2; ++k) {
      const FrequencyExponent e = frequency_exponent(spec, k);
      slot->w.push_back(std::pow(
          spec.base, static_cast<double>(e.numerator) / static_cast<double>(e.denominator)));
    }
  }
  return *slot;
}

}  // namespace

std::vector<Block> oracle_grid(uint64_t max_position, double max_base) {
  std::vector<Block> grid;
  for (const int d : {64, 512})
    for (const double base : {1e4, 5e5}) {
      if (base > max_base) continue;
      TableSpec spec;
      spec.d_model = d;
      spec.base = base;
      grid.push_back({spec, std::min<uint64_t>(512, max_position + 1)});
      for (const uint64_t start : {uint64_t{8191 - 7}, uint64_t{65535 - 7}, (uint64_t{1} << 20) - 7,
                                   (uint64_t{1} << 24) - 15}) {
        if (start + 15 > max_position) continue;
        spec.start = start;
        grid.push_back({spec, 16});
      }
    }
  return grid;
}

Worst worst_against_claim(const Implementation& impl, const TableSpec& spec,
                          const GeneratedTable& got) {
  const ExactBlock& exact = exact_block(spec, got.rows);
  const int d = spec.d_model;
  const double u = unit_roundoff(impl.compute);
  Worst worst;
  for (uint64_t r = 0; r < got.rows; ++r) {
    const uint64_t pos = spec.start + r;
    for (int c = 0; c < got.width; ++c) {
      const Column col = column_at(spec, c);
      const double x = exact.table.exact[interleaved_index(r, d, col)];
      const double angle = static_cast<double>(pos) * exact.w[col.pair];
      const double budget =
          oracle::model_budget(x, angle, static_cast<double>(impl.steps_since_direct(pos)),
                               impl.output, impl.claim.c, u);
      const double g = got.value(r * got.width + c);
      const double err = std::isfinite(g) ? std::fabs(g - x) : INFINITY;
      worst.max_abs = std::max(worst.max_abs, err);
      if (err / budget > worst.excess) {
        const double max_abs = worst.max_abs;
        worst = {err / budget, pos, c, g, x, budget, max_abs};
      }
    }
  }
  return worst;
}

std::string describe(const Worst& w, const TableSpec& spec) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "d=%d base=%g schedule=%s layout=%s pos=%llu dim=%d got=%a exact=%a budget=%a "
                "(%.3g x the budget)",
                spec.d_model, spec.base, std::string(name_of(spec.schedule)).c_str(),
                std::string(name_of(spec.layout)).c_str(), static_cast<unsigned long long>(w.pos),
                w.column, w.got, w.exact, w.budget, w.excess);
  return buf;
}

std::vector<Difference> bit_differences(const GeneratedTable& a, const GeneratedTable& b) {
  std::vector<Difference> out;
  if (a.rows != b.rows || a.width != b.width || a.output != b.output) return {{0, -1}};
  for (uint64_t i = 0; i < a.size(); ++i)
    if (a.bits(i) != b.bits(i))
      out.push_back({i / static_cast<uint64_t>(a.width), static_cast<int>(i % a.width)});
  return out;
}

Implementation with_fill(const Implementation& impl,
                         void (*fill)(const Implementation&, const TableSpec&, uint64_t, void*)) {
  Implementation copy = impl;
  copy.fill = fill;
  return copy;
}

std::string test_name(const std::string& s) {
  std::string out = s;
  for (char& ch : out)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return out;
}

}  // namespace pev::core::testutil
