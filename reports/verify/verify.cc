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
// Where each column's value comes from: (column, pair) of the sin columns and of the cos ones.
struct ColumnMap {
  size_t width = 0;
  int pairs = 0;
  std::vector<std::pair<size_t, size_t>> sin_of, cos_of;
  explicit ColumnMap(const TableSpec& spec) : width(table_width(spec)), pairs(spec.d_model / 2) {
    for (size_t c = 0; c < width; ++c) {
      const Column col = column_at(spec, static_cast<int>(c));
      (col.is_sin ? sin_of : cos_of).emplace_back(c, static_cast<size_t>(col.pair));
    }
  }
};

struct ExactRows {
  oracle::TileValues tile;
  std::vector<double> exact, rounded;
  // Rows first .. first + n - 1 of the pass: positions first_pos .. of a plain table, or indices
  // into `positions`' order.
  void compute(const oracle::Engine& engine, const TableSpec& spec,
               const properties::PositionMap* positions, uint64_t first, uint64_t first_pos,
               uint64_t n, const ColumnMap& map, bool need_rounded) {
    const size_t width = map.width;
    const int pair_count = map.pairs;
    const auto& sin_of = map.sin_of;
    const auto& cos_of = map.cos_of;
    exact.resize(n * width);
    rounded.resize(need_rounded ? n * width : 0);
    if (positions)
      oracle::evaluate_rows(engine, spec, positions->positions(), &positions->order()[first], n,
                            tile);
    else
      engine.evaluate({first_pos, static_cast<int>(n), 0, pair_count}, tile);
    // Column c takes pair p's sin or cos: one pass over the sin columns, one over the cos ones,
    // each a plain indexed copy.
    for (uint64_t r = 0; r < n; ++r) {
      const size_t at = r * static_cast<size_t>(pair_count);
      double* row = exact.data() + r * width;
      for (const auto& [c, pair] : sin_of) row[c] = tile.sin_exact[at + pair];
      for (const auto& [c, pair] : cos_of) row[c] = tile.cos_exact[at + pair];
      if (!need_rounded) continue;
      double* rounded_row = rounded.data() + r * width;
      for (const auto& [c, pair] : sin_of) rounded_row[c] = tile.sin_rounded[at + pair];
      for (const auto& [c, pair] : cos_of) rounded_row[c] = tile.cos_rounded[at + pair];
    }
  }
};

// What one block of rows gave each per-element property, and the time each took.
struct BlockParts {
  properties::BoundedCheck::Part bounded;
  properties::OracleCheck::Part oracle;
  properties::UniqueCheck::Part unique;
  double read_s = 0, exact_s = 0, oracle_s = 0, bounded_s = 0, unique_s = 0, consistent_s = 0;
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

}  // namespace

bool VerifyResult::holds() const {
  return std::all_of(verdicts.begin(), verdicts.end(),
                     [](const properties::Verdict& v) { return v.holds; });
}

VerifyResult verify_table(TableInput table, const VerifyOptions& options) {
  VerifyResult r;
  r.table = table.name;
  r.description = table.description;
  r.spec = options.spec;
  r.budget = options.budget;
  r.source = options.source;
  r.dtype = table.dtype;
  const uint64_t rows = table.rows;
  // At given position ids the pass goes along the rows in order of their positions, and the
  // checks see indices into that order (spec.start 0); the map says which row and position each
  // is, and the oracle takes each pair at its own position.
  std::unique_ptr<const properties::PositionMap> positioned;
  TableSpec spec = options.spec;
  if (options.positions) {
    if (auto err = validate_positions(*options.positions, spec, rows))
      throw std::invalid_argument(*err);
    r.spec = spec;
    r.positions = options.positions->describe(options.positions_name);
    positioned = std::make_unique<properties::PositionMap>(spec, *options.positions);
    spec.start = 0;
  }
  const properties::PositionMap* map = positioned.get();
  const uint64_t width = static_cast<uint64_t>(table_width(spec));
  properties::RowReader read = std::move(table.read);
  if (!read) {
    auto values = std::make_shared<const std::vector<double>>(std::move(table.values));
    read = [values, width](uint64_t first, uint64_t n, double* out) {
      std::copy_n(values->begin() + static_cast<std::ptrdiff_t>(first * width), n * width, out);
    };
  }
  if (map) read = in_position_order(std::move(read), *map, width);
  const auto ut =
      properties::streamed_table(table.name, table.dtype, options.budget, spec, rows, read);

  // One pass: each block is read once, its exact and correctly rounded values computed once, and
  // every per-element property fed from them.
  const properties::BoundedCheck bounded(*ut, spec, map);
  const properties::OracleCheck oracle_check(*ut, spec, map);
  const uint64_t partitions =
      properties::UniqueCheck::partitions_for(rows, options.unique_rows_per_pass);
  const properties::UniqueCheck unique(*ut, spec, rows, partitions, 0, map);
  // Strict and faithful budgets compare encodings with the correctly rounded values; the model
  // needs only the exact ones (an engine for float64 skips the rounding to the table's format).
  const auto engine = oracle::make_fast_engine(
      r.spec, options.budget.kind == Claim::Kind::kModel ? Dtype::kFloat64 : table.dtype);
  // The correctly rounded values matter to strict and faithful budgets (judged by encoding).
  const bool by_encoding = options.budget.kind != Claim::Kind::kModel;
  const ColumnMap columns(spec);
  const uint64_t block_rows = std::max<uint64_t>(1, options.block_elements / width);
  const uint64_t blocks = (rows + block_rows - 1) / block_rows;
  const Stripes stripes(rows, block_rows);
  std::vector<BlockParts> parts(blocks);
  std::vector<measure::ConsistencyFigures> consistency(stripes.count);
  // Reads rows [first - before, first + n) and computes the exact values of [first, first + n):
  // the row before is for the neighbours' distance of the unique check.
  const auto load = [&](uint64_t first, uint64_t n, uint64_t before, std::vector<double>& got,
                        ExactRows& exact, double& read_s, double& exact_s) {
    got.resize((n + before) * width);
    auto t = Clock::now();
    read(first - before, n + before, got.data());
    read_s += seconds_since(t);
    t = Clock::now();
    exact.compute(*engine, r.spec, map, first, spec.start + first, n, columns, by_encoding);
    exact_s += seconds_since(t);
  };
  parallel_for(stripes.count, options.threads, [&](uint64_t s) {
    thread_local std::vector<double> got;
    thread_local ExactRows exact;
    const auto [first_block, end_block] = stripes.blocks(s, blocks);
    const uint64_t stripe_first = first_block * block_rows;
    const uint64_t stripe_end = std::min(rows, end_block * block_rows);
    // The consistency check sees the rows either side of the stripe too (not judged there), so
    // that its verdicts do not depend on where the stripes are cut.
    measure::ConsistencyRun run(table.dtype, static_cast<int>(width),
                                stripe_first - std::min(stripe_first, stripes.halo), spec.start);
    double halo_read_s = 0, halo_exact_s = 0, consistent_s = 0;
    const auto halo = [&](uint64_t first, uint64_t end) {
      for (; first < end; first += block_rows) {
        const uint64_t n = std::min(block_rows, end - first);
        load(first, n, 0, got, exact, halo_read_s, halo_exact_s);
        const auto t = Clock::now();
        run.add(got.data(), exact.exact.data(), n, false);
        consistent_s += seconds_since(t);
      }
    };
    // At position ids the consistency check goes along runs of smooth positions instead (below).
    if (!map) halo(stripe_first - std::min(stripe_first, stripes.halo), stripe_first);
    for (uint64_t b = first_block; b < end_block; ++b) {
      BlockParts& p = parts[b];
      const uint64_t first = b * block_rows, n = std::min(block_rows, rows - first);
      const uint64_t before = first > 0 ? 1 : 0;
      load(first, n, before, got, exact, p.read_s, p.exact_s);
      const double* block = got.data() + before * width;
      auto t = Clock::now();
      oracle_check.add(p.oracle, first, n, block, exact.exact.data(),
                       by_encoding ? exact.rounded.data() : nullptr);
      p.oracle_s = seconds_since(t);
      t = Clock::now();
      bounded.add(p.bounded, first, n, block);
      p.bounded_s = seconds_since(t);
      t = Clock::now();
      unique.add(p.unique, first, n, block, before ? got.data() : nullptr);
      p.unique_s = seconds_since(t);
      t = Clock::now();
      if (!map) run.add(block, exact.exact.data(), n, true);
      p.consistent_s = seconds_since(t);
    }
    if (!map) halo(stripe_end, std::min(rows, stripe_end + stripes.halo));
    const auto t = Clock::now();
    run.finish();
    consistency[s] = run.figures();
    // The stripe's own costs go to its first block's account.
    parts[first_block].read_s += halo_read_s;
    parts[first_block].exact_s += halo_exact_s;
    parts[first_block].consistent_s += consistent_s + seconds_since(t);
  });
  properties::BoundedCheck::Part bounded_all;
  properties::OracleCheck::Part oracle_all;
  properties::UniqueCheck::Part unique_all;
  measure::ConsistencyFigures consistency_all;
  double read_s = 0, exact_s = 0, oracle_s = 0, bounded_s = 0, unique_s = 0, consistent_s = 0;
  for (BlockParts& p : parts) {  // in block order: the figures do not depend on the threads
    bounded_all.merge(p.bounded);
    oracle_all.merge(p.oracle);
    unique_all.merge(std::move(p.unique));
    read_s += p.read_s;
    exact_s += p.exact_s;
    oracle_s += p.oracle_s;
    bounded_s += p.bounded_s;
    unique_s += p.unique_s;
    consistent_s += p.consistent_s;
  }
  for (const measure::ConsistencyFigures& c : consistency) consistency_all.merge(c);
  if (map) {  // each run of smooth positions on its own, with its own windows
    const auto runs = smooth_runs(*map);
    std::vector<measure::ConsistencyFigures> per_run(runs.size());
    std::vector<double> run_s(runs.size());
    parallel_for(runs.size(), options.threads, [&](uint64_t k) {
      thread_local std::vector<double> got;
      thread_local ExactRows exact;
      double read_s = 0, exact_s = 0;
      const auto t = Clock::now();
      // Only elements with a whole window on both sides are judged: at a run's end the window
      // would be one-sided, and a gap in the positions can fall where the angle's rounding steps
      // up (its ulp doubles), which a one-sided window never saw. The 32 rows at each end shape
      // the envelope; a run too short for that is the oracle's alone.
      const uint64_t first = runs[k].first, end = runs[k].second, edge = stripes.halo;
      if (end - first <= 2 * edge) {
        per_run[k].unjudged = (end - first) * width;
        return;
      }
      measure::ConsistencyRun run(table.dtype, static_cast<int>(width), 0, first);
      const auto feed = [&](uint64_t from, uint64_t to, bool judged) {
        for (; from < to; from += block_rows) {
          const uint64_t n = std::min(block_rows, to - from);
          load(from, n, 0, got, exact, read_s, exact_s);
          run.add(got.data(), exact.exact.data(), n, judged);
        }
      };
      feed(first, first + edge, false);
      feed(first + edge, end - edge, true);
      feed(end - edge, end, false);
      run.finish();
      per_run[k] = run.figures();
      per_run[k].unjudged += 2 * edge * width;
      run_s[k] = seconds_since(t);
    });
    for (size_t k = 0; k < runs.size(); ++k) {
      consistency_all.merge(per_run[k]);
      consistent_s += run_s[k];
    }
  }
  parts.clear();
  parts.shrink_to_fit();

  auto t = Clock::now();
  r.verdicts.push_back(bounded.verdict(bounded_all));
  properties::UniqueCheck::Result repeats = unique.resolve(unique_all);
  // A table of more rows than one pass can hold the hashes of: the other partitions, each in a
  // pass of its own that only reads and hashes.
  for (uint64_t partition = 1; partition < partitions; ++partition) {
    const properties::UniqueCheck more(*ut, spec, rows, partitions, partition, map);
    std::vector<properties::UniqueCheck::Part> more_parts(blocks);
    parallel_for(blocks, options.threads, [&](uint64_t b) {
      const uint64_t first = b * block_rows, n = std::min(block_rows, rows - first);
      thread_local std::vector<double> got;
      got.resize(n * width);
      read(first, n, got.data());
      more.add(more_parts[b], first, n, got.data(), nullptr);
    });
    properties::UniqueCheck::Part all;
    for (auto& p : more_parts) all.merge(std::move(p));
    repeats.merge(more.resolve(all));
  }
  r.verdicts.push_back(unique.verdict(repeats, unique_all));
  unique_s += seconds_since(t);

  // Shift and growth compare rows at positions a distance apart: at given ids, along the longest
  // run of consecutive positions the table holds.
  const ConsecutiveRun run =
      map ? longest_run(*map, read, width, table.name, table.dtype, options.budget, r.spec)
          : ConsecutiveRun{};
  const properties::UnderTest& along = map ? *run.table : *ut;
  const TableSpec along_spec = map ? run.spec : spec;
  const uint64_t along_rows = map ? run.rows : rows;
  t = Clock::now();
  if (!holds_sin_and_cos(spec.layout)) {
    r.verdicts.push_back(
        not_applicable("shift", "a cache of one function holds no (sin, cos) pairs to rotate"));
  } else if (along_rows < 2) {
    r.verdicts.push_back(not_applicable("shift", "no two rows at consecutive positions"));
  } else {
    r.verdicts.push_back(
        properties::check_shift(along, along_spec, shift_cases(along_spec, along_rows)));
  }
  const double shift_s = seconds_since(t);
  t = Clock::now();
  std::vector<uint64_t> positions;
  for (uint64_t p : properties::growth_positions(along_spec.start + along_rows - 1))
    if (p >= along_spec.start) positions.push_back(p);
  if (along_rows == 0)
    r.verdicts.push_back(not_applicable("growth", "no rows at consecutive positions"));
  else
    r.verdicts.push_back(properties::check_growth(along, along_spec, positions));
  for (size_t i = r.verdicts.size() - 2; map && i < r.verdicts.size(); ++i)
    if (along_rows >= 2)
      r.verdicts[i].notes.push_back(fmt::format(
          "judged along positions {} .. {}, the longest run of consecutive positions the rows "
          "hold ({} rows)",
          along_spec.start, along_spec.start + along_rows - 1, along_rows));
  const double growth_s = seconds_since(t);
  r.verdicts.push_back(oracle_check.verdict(oracle_all));
  t = Clock::now();
  r.verdicts.push_back(properties::ConsistentCheck(*ut, spec, map).verdict(consistency_all));
  consistent_s += seconds_since(t);
  r.oracle = oracle_all.figures;
  r.oracle_coverage = fmt::format("exhaustive: every one of {} elements", rows * width);
  r.seconds = {{"read", read_s},       {"exact values", exact_s},   {"oracle", oracle_s},
               {"bounded", bounded_s}, {"unique", unique_s},        {"shift", shift_s},
               {"growth", growth_s},   {"consistent", consistent_s}};
  return r;
}

}  // namespace pev::reports
