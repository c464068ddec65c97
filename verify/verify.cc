#include "peverify/verify/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "peverify/properties/consistent.h"
#include "peverify/support/parallel.h"
#include "peverify/verify/diagnosis.h"
#include "peverify/verify/verify_pass.h"
#include "peverify/verify/verify_positions.h"

namespace pev::verify {
namespace {

using namespace pass;

// Shift cases spread over the table: positions on a log scale, offsets from 1 to 1000, pairs at
// both ends of the frequency range and in the middle.
std::vector<properties::ShiftCase> shift_cases(const TableSpec& spec, uint64_t rows) {
  std::vector<properties::ShiftCase> cases;
  const int pairs = spec.d_model / 2;
  const int pair_choices[] = {0, 1, pairs / 4, pairs / 2, pairs - 2, pairs - 1};
  for (const uint64_t m : {1ull, 2ull, 7ull, 64ull, 1000ull}) {
    if (m >= rows) continue;
    for (uint64_t i = 0; i < 48; ++i) {
      // pos + m must be a row of the table.
      const double span = static_cast<double>(rows - m);
      const uint64_t offset = static_cast<uint64_t>(std::pow(span, i / 47.0)) - 1;
      const uint64_t pos = spec.start + std::min<uint64_t>(offset, rows - m - 1);
      for (const int k : pair_choices)
        if (k >= 0 && k < pairs) cases.push_back({pos, m, k});
    }
  }
  return cases;
}

properties::PropertyVerdict not_applicable(std::string property, const std::string& why) {
  properties::PropertyVerdict v;
  v.property = std::move(property);
  v.summary = "not applicable: " + why;
  return v;
}

// At position ids: the consistency check along each run of smooth positions on its own, with its
// own windows. Only elements with a whole window on both sides are judged: at a run's end the
// window would be one-sided, and a gap in the positions can fall where the angle's rounding steps
// up (its ulp doubles), which a one-sided window never saw. The rows at each end shape the
// envelope; a run too short for that is the oracle's alone.
void consistency_along_runs(const PassTable& t, int threads, PassFigures& all) {
  const auto runs = smooth_runs(*t.map());
  std::vector<measure::ConsistencyFigures> per_run(runs.size());
  std::vector<double> run_s(runs.size());
  parallel_for(runs.size(), threads, [&](uint64_t k) {
    thread_local std::vector<double> got;
    thread_local ExactRows exact;
    StageTimes ignored;  // the run's whole time is the consistency check's
    const auto t0 = Clock::now();
    const uint64_t first = runs[k].first, end = runs[k].second, edge = t.stripes->halo;
    if (end - first <= 2 * edge) {
      per_run[k].unjudged = (end - first) * t.width;
      return;
    }
    measure::ConsistencyRun run(t.dtype, static_cast<int>(t.width), 0, first);
    const auto feed = [&](uint64_t from, uint64_t to, bool judged) {
      for (; from < to; from += t.block_rows) {
        const uint64_t n = std::min(t.block_rows, to - from);
        t.load(from, n, 0, got, exact, ignored);
        run.add(got.data(), exact.exact.data(), n, judged);
      }
    };
    feed(first, first + edge, false);
    feed(first + edge, end - edge, true);
    feed(end - edge, end, false);
    run.finish();
    per_run[k] = run.figures();
    per_run[k].unjudged += 2 * edge * t.width;
    run_s[k] = verify::pass::seconds_since(t0);
  });
  for (size_t k = 0; k < runs.size(); ++k) {
    all.consistency.merge(per_run[k]);
    all.times.consistent += run_s[k];
  }
}

// The unique check's verdict: the pass's partition of the rows' hashes, then each other
// partition in a pass of its own that only reads and hashes.
properties::PropertyVerdict unique_verdict(const PassTable& t, const ElementChecks& checks,
                                           PassFigures& all, int threads) {
  properties::UniqueCheck::Result repeats = checks.unique.resolve(all.unique);
  for (uint64_t partition = 1; partition < checks.partitions; ++partition) {
    const properties::UniqueCheck more(*t.under_test, t.spec, t.rows, checks.partitions, partition,
                                       t.map());
    std::vector<properties::UniqueCheck::Part> more_parts(t.blocks);
    parallel_for(t.blocks, threads, [&](uint64_t b) {
      const uint64_t first = b * t.block_rows, n = std::min(t.block_rows, t.rows - first);
      thread_local std::vector<double> got;
      got.resize(n * t.width);
      t.read(first, n, got.data());
      more.add(more_parts[b], first, n, got.data(), nullptr);
    });
    properties::UniqueCheck::Part merged;
    for (auto& p : more_parts) merged.merge(std::move(p));
    repeats.merge(more.resolve(merged));
  }
  return checks.unique.verdict(repeats, all.unique);
}

// Shift and growth compare rows a distance apart: along the table, or at position ids along the
// longest run of consecutive positions its rows hold (said in a note).
void shift_and_growth(const PassTable& t, const VerifyOptions& options,
                      std::vector<properties::PropertyVerdict>& verdicts, StageTimes& times) {
  const ConsecutiveRun run =
      t.map() ? longest_run(*t.map(), t.read, t.width, t.name, t.dtype, options.claim, t.exact_spec)
              : ConsecutiveRun{};
  const properties::UnderTest& along = t.map() ? *run.table : *t.under_test;
  const TableSpec along_spec = t.map() ? run.spec : t.spec;
  const uint64_t along_rows = t.map() ? run.rows : t.rows;
  {
    const StageTimer timer(times.shift);
    if (!holds_sin_and_cos(t.spec.layout))
      verdicts.push_back(
          not_applicable("shift", "a cache of one function holds no (sin, cos) pairs to rotate"));
    else if (along_rows < 2)
      verdicts.push_back(not_applicable("shift", "no two rows at consecutive positions"));
    else
      verdicts.push_back(
          properties::check_shift(along, along_spec, shift_cases(along_spec, along_rows)));
  }
  const StageTimer timer(times.growth);
  std::vector<uint64_t> positions;
  for (uint64_t p : properties::growth_positions(along_spec.start + along_rows - 1))
    if (p >= along_spec.start) positions.push_back(p);
  if (along_rows == 0)
    verdicts.push_back(not_applicable("growth", "no rows at consecutive positions"));
  else
    verdicts.push_back(properties::check_growth(along, along_spec, positions));
  if (!t.map() || along_rows < 2) return;
  for (size_t i = verdicts.size() - 2; i < verdicts.size(); ++i)
    verdicts[i].notes.push_back(fmt::format(
        "judged along positions {} .. {}, the longest run of consecutive positions the rows "
        "hold ({} rows)",
        along_spec.start, along_spec.start + along_rows - 1, along_rows));
}

// A horizon is the last position up to which every element meets its target: growth measures C
// on sampled rows, but verify has judged every element, so the horizons are the whole table's.
void every_element_horizons(const properties::OracleCheck::Part& oracle, uint64_t last_position,
                            properties::PropertyVerdict& growth) {
  if (growth.figures.find("fitted_c") == growth.figures.end() || oracle.first_missed.empty())
    return;
  const std::vector<properties::Target>& targets = properties::horizon_targets();
  std::vector<uint64_t> horizon(targets.size());
  for (size_t t = 0; t < targets.size(); ++t) {
    const uint64_t missed = oracle.first_missed[t];
    horizon[t] = missed == properties::kNoPosition ? last_position : missed > 0 ? missed - 1 : 0;
    growth.figures["horizon_" + targets[t].name] = static_cast<double>(horizon[t]);
  }
  const std::string said = "horizon for 1e-4 abs: ";
  const size_t at = growth.summary.find(said);
  if (at != std::string::npos)
    growth.summary = growth.summary.substr(0, at + said.size()) + std::to_string(horizon[1]);
}

}  // namespace

bool VerifyResult::holds() const {
  return std::all_of(verdicts.begin(), verdicts.end(),
                     [](const properties::PropertyVerdict& v) { return v.holds; });
}

VerifyResult verify_table(TableInput table, const VerifyOptions& options) {
  VerifyResult r;
  r.table = table.name;
  r.description = table.description;
  r.claim = options.claim;
  r.source = options.source;
  r.dtype = table.dtype;
  const PassTable t = set_up(std::move(table), options);
  r.spec = t.exact_spec;
  if (options.positions) r.positions = options.positions->describe(options.positions_name);

  // One pass: each block read once, its exact values computed once, every per-element check fed.
  const ElementChecks checks(t, options);
  verify::pass::PassFigures all = striped_pass(t, checks, options.threads);
  if (t.map()) consistency_along_runs(t, options.threads, all);
  StageTimes& times = all.times;
  {
    const StageTimer timer(times.unique);  // bounded's verdict is a summary: no stage of its own
    r.verdicts.push_back(checks.bounded.verdict(all.bounded));
    r.verdicts.push_back(unique_verdict(t, checks, all, options.threads));
  }
  shift_and_growth(t, options, r.verdicts, times);
  every_element_horizons(
      all.oracle, options.positions ? options.positions->max_position() : t.spec.start + t.rows - 1,
      r.verdicts.back());
  r.verdicts.push_back(checks.oracle.verdict(all.oracle));
  {
    const StageTimer timer(times.consistent);
    r.verdicts.push_back(
        properties::ConsistentCheck(*t.under_test, t.spec, t.map()).verdict(all.consistency));
  }
  r.oracle = all.oracle.figures;
  r.column_max_abs = std::move(all.columns.max_abs);
  r.oracle_coverage = fmt::format("exhaustive: every one of {} elements", t.rows * t.width);
  r.seconds = times.list();
  if (options.diagnose && !r.holds()) {  // nothing on a pass
    const auto t0 = Clock::now();
    try {  // a diagnosis never changes the verdict nor the exit code
      r.diagnosis = diagnose(t.read, t.rows, t.dtype, t.map(), options, r);
    } catch (const std::exception& e) {
      r.diagnosis = Diagnosis{
          diagnosis::documented("none"), std::string("not diagnosed: ") + e.what(), {}, 0};
    }
    r.seconds.emplace_back("diagnosis", verify::pass::seconds_since(t0));
  }
  return r;
}

}  // namespace pev::verify
