#include "peverify/bench/engine_benchmark.h"

#include <time.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "peverify/oracle/engine.h"
#include "peverify/oracle/fast_engine_kernel.h"

namespace pev::bench {
namespace {

constexpr int kTilePositions = 16;  // compute_table's tile height
constexpr int kMinRounds = 3;
constexpr int kMaxRounds = 9;

// CPU time of the calling thread: other processes on the machine do not count against it.
double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Evaluates tiles from `next` on for at least `seconds` (at least one tile); values per second.
double run(const oracle::Engine& engine, const TableSpec& spec, uint64_t positions, uint64_t& next,
           double seconds) {
  const int pairs = spec.d_model / 2;
  oracle::TileValues values;
  uint64_t evaluated = 0;
  const double start = thread_seconds();
  double elapsed = 0;
  do {
    const uint64_t first = next % positions;
    const int rows = static_cast<int>(std::min<uint64_t>(kTilePositions, positions - first));
    engine.evaluate(oracle::Tile{spec.start + first, rows, 0, pairs}, values);
    next = first + static_cast<uint64_t>(rows);
    evaluated += static_cast<uint64_t>(rows) * static_cast<uint64_t>(pairs);
    elapsed = thread_seconds() - start;
  } while (elapsed < seconds);
  return 2.0 * static_cast<double>(evaluated) / std::max(elapsed, 1e-9);
}

}  // namespace

EngineComparison compare_engines(const TableSpec& spec, Dtype dtype, uint64_t positions,
                                 double seconds) {
  if (auto err = validate_range(spec, positions)) throw std::invalid_argument(*err);
  const auto mpfr = oracle::make_mpfr_engine(spec, dtype);
  const auto fast = oracle::make_fast_engine(spec, dtype);
  // Each round gives both engines the same share; the MPFR engine needs ~10 ms for one tile.
  const int rounds = std::clamp(static_cast<int>(seconds / 0.2), kMinRounds, kMaxRounds);
  const double share = seconds / (2.0 * rounds);
  std::vector<double> mpfr_rates, fast_rates;
  uint64_t next_mpfr = 0, next_fast = 0;
  for (int r = 0; r < rounds; ++r) {
    mpfr_rates.push_back(run(*mpfr, spec, positions, next_mpfr, share));
    fast_rates.push_back(run(*fast, spec, positions, next_fast, share));
  }
  EngineComparison c;
  c.rounds = rounds;
  c.mpfr_values_per_s = median(mpfr_rates);
  c.fast_values_per_s = median(fast_rates);
  c.speedup = c.fast_values_per_s / c.mpfr_values_per_s;
  c.fast_elements = fast->stats().total();
  c.handed_off = fast->stats().handed_off.load();
  c.handoff_rate = c.fast_elements ? static_cast<double>(c.handed_off) / c.fast_elements : 0.0;
  c.fast_target = oracle::fast::dispatched_target();
  return c;
}

}  // namespace pev::bench
