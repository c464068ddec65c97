#include "peverify/crosscheck/vector_testutil.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "peverify/core/registry.h"
#include "peverify/measure/judge.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"

namespace pev::core::testutil {
namespace {

// The exact values of one block, interleaved.
struct ExactBlock {
  oracle::ExactTable table;
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
  const measure::Judge judge(spec, impl.claim, impl.output);
  Worst worst;
  for (uint64_t r = 0; r < got.rows; ++r) {
    const uint64_t pos = spec.start + r;
    for (int c = 0; c < got.width; ++c) {
      const double x = exact.table.exact[interleaved_index(r, d, column_at(spec, c))];
      const double g = got.value(r * got.width + c);
      const measure::Judgement j =
          judge.judge(pos, c, static_cast<double>(impl.steps_since_direct(pos)), g, x);
      const double err = measure::is_number(j.error.category) ? j.error.abs : INFINITY;
      worst.max_abs = std::max(worst.max_abs, err);
      if (err / j.allowed > worst.excess) {
        const double max_abs = worst.max_abs;
        worst = {err / j.allowed, pos, c, g, x, j.allowed, max_abs};
      }
    }
  }
  return worst;
}

std::string describe(const Worst& w, const TableSpec& spec) {
  return fmt::format(
      "d={} base={:g} schedule={} layout={} pos={} dim={} got={:a} exact={:a} budget={:a} ({:.3g} "
      "x the budget)",
      spec.d_model, spec.base, name_of(spec.schedule), name_of(spec.layout), w.pos, w.column, w.got,
      w.exact, w.budget, w.excess);
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
