#include "peverify/reports/verify/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>

#include "peverify/measure/consistency.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/positioned.h"
#include "peverify/oracle/table.h"
#include "peverify/properties/accumulators.h"
#include "peverify/properties/consistent.h"
#include "peverify/properties/under_test.h"
#include "peverify/reports/verify/verify_positions.h"
#include "peverify/support/parallel.h"

namespace pev::reports {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

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

// The exact and correctly rounded values of a block of rows in the table's layout: what
// oracle::compute_table gives, into buffers a thread keeps from block to block (a fresh table per
// block would be allocated and zeroed at the oracle's own speed).
struct ExactRows {
  oracle::TileValues tile;
  std::vector<double> exact, rounded;
  // Rows first .. first + n - 1 of the pass: positions first_pos .. of a plain table, or indices
  // into `positions`' order.
  void compute(const oracle::Engine& engine, const TableSpec& spec,
               const properties::PositionMap* positions, uint64_t first, uint64_t first_pos,
               uint64_t n, bool need_rounded) {
    const auto width = static_cast<size_t>(table_width(spec));
    exact.resize(n * width);
    rounded.resize(need_rounded ? n * width : 0);
    if (positions)
      oracle::evaluate_rows(engine, spec, positions->positions(), &positions->order()[first], n,
                            tile);
    else
      engine.evaluate({first_pos, static_cast<int>(n), 0, spec.d_model / 2}, tile);
    oracle::layout_rows(spec, tile, n, false, exact.data());
    if (need_rounded) oracle::layout_rows(spec, tile, n, true, rounded.data());
  }
};

// Seconds per stage of verify: CPU seconds summed over the threads for the stages of the pass
// (what the benchmark reports as each property's share), wall seconds for the others.
struct StageTimes {
  double read = 0, exact = 0, oracle = 0, bounded = 0, unique = 0, consistent = 0;
  double shift = 0, growth = 0;
  void add(const StageTimes& o) {
    read += o.read, exact += o.exact, oracle += o.oracle, bounded += o.bounded;
    unique += o.unique, consistent += o.consistent, shift += o.shift, growth += o.growth;
  }
  std::vector<std::pair<std::string, double>> list() const {
    return {{"read", read},       {"exact values", exact},   {"oracle", oracle},
            {"bounded", bounded}, {"unique", unique},        {"shift", shift},
            {"growth", growth},   {"consistent", consistent}};
  }
};

// Adds the seconds from its start to a stage when it goes out of scope.
class StageTimer {
 public:
  explicit StageTimer(double& stage) : stage_(stage), start_(Clock::now()) {}
  ~StageTimer() { stage_ += seconds_since(start_); }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  double& stage_;
  Clock::time_point start_;
};

// What one block of rows gave each per-element property, and the time each took.
struct BlockParts {
  properties::BoundedCheck::Part bounded;
  properties::OracleCheck::Part oracle;
  properties::UniqueCheck::Part unique;
  StageTimes times;
};

// The pass's rows cut into stripes of whole blocks, each run in order by one thread (the
// consistency check follows each column along its rows). A stripe starts on a group of the
// consistency check and reads `halo` rows either side; stripes of at least kStripeRows keep that
// reading to a few per cent. The cut depends on the table alone, not on the threads.
struct Stripes {
  static constexpr uint64_t kStripeRows = 2048;
  uint64_t blocks_per_stripe = 1, count = 0, halo = 0;
  Stripes(uint64_t rows, uint64_t block_rows) {
    const uint64_t g = static_cast<uint64_t>(measure::ConsistencyRun::group_rows());
    halo = g * static_cast<uint64_t>(measure::ConsistencyRun::groups_each_side());
    const uint64_t step = g / std::gcd(block_rows, g);  // blocks whose rows fill whole groups
    blocks_per_stripe = std::max<uint64_t>(1, (kStripeRows + block_rows - 1) / block_rows);
    blocks_per_stripe = (blocks_per_stripe + step - 1) / step * step;
    const uint64_t stripe_rows = blocks_per_stripe * block_rows;
    count = std::max<uint64_t>(1, (rows + stripe_rows - 1) / stripe_rows);
  }
  std::pair<uint64_t, uint64_t> blocks(uint64_t s, uint64_t total) const {
    return {s * blocks_per_stripe, std::min(total, (s + 1) * blocks_per_stripe)};
  }
};

properties::Verdict not_applicable(std::string property, const std::string& why) {
  properties::Verdict v;
  v.property = std::move(property);
  v.summary = "not applicable: " + why;
  return v;
}

// A table as the pass sees it, set up once: its rows in the order the checks go along them (at
// position ids, in order of their positions: the checks see indices into that order, with
// spec.start 0, and `map` says which row and position each is), the engine of its exact values,
// and the cut into blocks and stripes.
struct PassTable {
  std::string name;
  Dtype dtype = Dtype::kFloat32;
  uint64_t rows = 0, width = 0;
  TableSpec spec;        // the pass's: start 0 at position ids
  TableSpec exact_spec;  // the declared one, which the oracle evaluates
  std::unique_ptr<const properties::PositionMap> positioned;
  properties::RowReader read;
  std::unique_ptr<properties::UnderTest> under_test;
  std::unique_ptr<oracle::Engine> engine;
  // Strict and faithful budgets compare encodings with the correctly rounded values; the model
  // needs only the exact ones (an engine for float64 skips the rounding to the table's format).
  bool by_encoding = false;
  uint64_t block_rows = 1, blocks = 0;
  std::unique_ptr<Stripes> stripes;

  const properties::PositionMap* map() const { return positioned.get(); }

  // Reads rows [first - before, first + n) and computes the exact values of [first, first + n):
  // the row before is for the neighbours' distance of the unique check.
  void load(uint64_t first, uint64_t n, uint64_t before, std::vector<double>& got, ExactRows& exact,
            StageTimes& times) const {
    got.resize((n + before) * width);
    {
      const StageTimer t(times.read);
      read(first - before, n + before, got.data());
    }
    const StageTimer t(times.exact);
    exact.compute(*engine, exact_spec, map(), first, spec.start + first, n, by_encoding);
  }
};

PassTable set_up(TableInput table, const VerifyOptions& options) {
  PassTable t;
  t.name = table.name;
  t.dtype = table.dtype;
  t.rows = table.rows;
  t.spec = t.exact_spec = options.spec;
  if (options.positions) {
    if (auto err = validate_positions(*options.positions, t.spec, t.rows))
      throw std::invalid_argument(*err);
    t.exact_spec = t.spec;
    t.positioned = std::make_unique<properties::PositionMap>(t.spec, *options.positions);
    t.spec.start = 0;
  }
  t.width = static_cast<uint64_t>(table_width(t.spec));
  t.read = std::move(table.read);
  if (!t.read) {
    auto values = std::make_shared<const std::vector<double>>(std::move(table.values));
    t.read = [values, width = t.width](uint64_t first, uint64_t n, double* out) {
      std::copy_n(values->begin() + static_cast<std::ptrdiff_t>(first * width), n * width, out);
    };
  }
  if (t.map()) t.read = in_position_order(std::move(t.read), *t.map(), t.width);
  t.under_test =
      properties::streamed_table(t.name, t.dtype, options.budget, t.spec, t.rows, t.read);
  t.by_encoding = options.budget.kind != Claim::Kind::kModel;
  t.engine = oracle::make_fast_engine(t.exact_spec, t.by_encoding ? t.dtype : Dtype::kFloat64);
  t.block_rows = std::max<uint64_t>(1, options.block_elements / t.width);
  t.blocks = (t.rows + t.block_rows - 1) / t.block_rows;
  t.stripes = std::make_unique<Stripes>(t.rows, t.block_rows);
  return t;
}

// The per-element checks the pass feeds, bounded, oracle and unique (its first partition of the
// rows' hashes: a table of more rows than one pass holds gets passes of its own for the others).
struct ElementChecks {
  properties::BoundedCheck bounded;
  properties::OracleCheck oracle;
  uint64_t partitions;
  properties::UniqueCheck unique;
  ElementChecks(const PassTable& t, const VerifyOptions& options)
      : bounded(*t.under_test, t.spec, t.map()),
        oracle(*t.under_test, t.spec, t.map()),
        partitions(properties::UniqueCheck::partitions_for(t.rows, options.unique_rows_per_pass)),
        unique(*t.under_test, t.spec, t.rows, partitions, 0, t.map()) {}
};

// What the pass gave, merged in block order (the figures do not depend on the threads).
struct PassFigures {
  properties::BoundedCheck::Part bounded;
  properties::OracleCheck::Part oracle;
  properties::UniqueCheck::Part unique;
  measure::ConsistencyFigures consistency;
  StageTimes times;
};

// One stripe of whole blocks, in order on one thread: each block read once, its exact and
// correctly rounded values computed once, and every per-element check fed from them. The
// consistency check also sees the stripe's halo rows (not judged there), so that its verdicts do
// not depend on where the stripes are cut; at position ids it goes along runs of smooth positions
// instead (consistency_along_runs).
measure::ConsistencyFigures run_stripe(const PassTable& t, const ElementChecks& checks,
                                       uint64_t stripe, std::vector<BlockParts>& parts) {
  thread_local std::vector<double> got;
  thread_local ExactRows exact;
  const auto [first_block, end_block] = t.stripes->blocks(stripe, t.blocks);
  const uint64_t stripe_first = first_block * t.block_rows;
  const uint64_t stripe_end = std::min(t.rows, end_block * t.block_rows);
  const uint64_t halo = t.stripes->halo;
  measure::ConsistencyRun run(t.dtype, static_cast<int>(t.width),
                              stripe_first - std::min(stripe_first, halo), t.spec.start);
  StageTimes stripe_times;  // the halo's and the stripe's own costs
  const auto feed_halo = [&](uint64_t first, uint64_t end) {
    for (; first < end; first += t.block_rows) {
      const uint64_t n = std::min(t.block_rows, end - first);
      t.load(first, n, 0, got, exact, stripe_times);
      const StageTimer timer(stripe_times.consistent);
      run.add(got.data(), exact.exact.data(), n, false);
    }
  };
  if (!t.map()) feed_halo(stripe_first - std::min(stripe_first, halo), stripe_first);
  for (uint64_t b = first_block; b < end_block; ++b) {
    BlockParts& p = parts[b];
    const uint64_t first = b * t.block_rows, n = std::min(t.block_rows, t.rows - first);
    const uint64_t before = first > 0 ? 1 : 0;
    t.load(first, n, before, got, exact, p.times);
    const double* block = got.data() + before * t.width;
    {
      const StageTimer timer(p.times.oracle);
      checks.oracle.add(p.oracle, first, n, block, exact.exact.data(),
                        t.by_encoding ? exact.rounded.data() : nullptr);
    }
    {
      const StageTimer timer(p.times.bounded);
      checks.bounded.add(p.bounded, first, n, block);
    }
    {
      const StageTimer timer(p.times.unique);
      checks.unique.add(p.unique, first, n, block, before ? got.data() : nullptr);
    }
    const StageTimer timer(p.times.consistent);
    if (!t.map()) run.add(block, exact.exact.data(), n, true);
  }
  if (!t.map()) feed_halo(stripe_end, std::min(t.rows, stripe_end + halo));
  {
    const StageTimer timer(stripe_times.consistent);
    run.finish();
  }
  parts[first_block].times.add(stripe_times);  // the stripe's costs go to its first block
  return run.figures();
}

PassFigures striped_pass(const PassTable& t, const ElementChecks& checks, int threads) {
  std::vector<BlockParts> parts(t.blocks);
  std::vector<measure::ConsistencyFigures> consistency(t.stripes->count);
  parallel_for(t.stripes->count, threads,
               [&](uint64_t s) { consistency[s] = run_stripe(t, checks, s, parts); });
  PassFigures all;
  for (BlockParts& p : parts) {  // in block order: the figures do not depend on the threads
    all.bounded.merge(p.bounded);
    all.oracle.merge(p.oracle);
    all.unique.merge(std::move(p.unique));
    all.times.add(p.times);
  }
  for (const measure::ConsistencyFigures& c : consistency) all.consistency.merge(c);
  return all;
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
    run_s[k] = seconds_since(t0);
  });
  for (size_t k = 0; k < runs.size(); ++k) {
    all.consistency.merge(per_run[k]);
    all.times.consistent += run_s[k];
  }
}

// The unique check's verdict: the pass's partition of the rows' hashes, then each other
// partition in a pass of its own that only reads and hashes.
properties::Verdict unique_verdict(const PassTable& t, const ElementChecks& checks,
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
                      std::vector<properties::Verdict>& verdicts, StageTimes& times) {
  const ConsecutiveRun run = t.map() ? longest_run(*t.map(), t.read, t.width, t.name, t.dtype,
                                                   options.budget, t.exact_spec)
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

}  // namespace

bool VerifyResult::holds() const {
  return std::all_of(verdicts.begin(), verdicts.end(),
                     [](const properties::Verdict& v) { return v.holds; });
}

VerifyResult verify_table(TableInput table, const VerifyOptions& options) {
  VerifyResult r;
  r.table = table.name;
  r.description = table.description;
  r.budget = options.budget;
  r.source = options.source;
  r.dtype = table.dtype;
  const PassTable t = set_up(std::move(table), options);
  r.spec = t.exact_spec;
  if (options.positions) r.positions = options.positions->describe(options.positions_name);

  // One pass: each block read once, its exact values computed once, every per-element check fed.
  const ElementChecks checks(t, options);
  PassFigures all = striped_pass(t, checks, options.threads);
  if (t.map()) consistency_along_runs(t, options.threads, all);
  StageTimes& times = all.times;
  {
    const StageTimer timer(times.unique);  // bounded's verdict is a summary: no stage of its own
    r.verdicts.push_back(checks.bounded.verdict(all.bounded));
    r.verdicts.push_back(unique_verdict(t, checks, all, options.threads));
  }
  shift_and_growth(t, options, r.verdicts, times);
  r.verdicts.push_back(checks.oracle.verdict(all.oracle));
  {
    const StageTimer timer(times.consistent);
    r.verdicts.push_back(
        properties::ConsistentCheck(*t.under_test, t.spec, t.map()).verdict(all.consistency));
  }
  r.oracle = all.oracle.figures;
  r.oracle_coverage = fmt::format("exhaustive: every one of {} elements", t.rows * t.width);
  r.seconds = times.list();
  return r;
}

}  // namespace pev::reports
