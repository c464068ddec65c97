#include "peverify/verify/verify_pass.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "peverify/oracle/positioned.h"
#include "peverify/oracle/table.h"
#include "peverify/support/parallel.h"
#include "peverify/verify/verify_positions.h"

namespace pev::verify::pass {
namespace {

// What one block of rows gave each per-element property, and the time each took.
struct BlockParts {
  ColumnMaxima columns;
  properties::BoundedCheck::Part bounded;
  properties::OracleCheck::Part oracle;
  properties::UniqueCheck::Part unique;
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
      if (t.column_maxima) p.columns.add(block, exact.exact.data(), n, t.width);
    }
    {
      const StageTimer timer(p.times.bounded);
      checks.bounded.add(p.bounded, first, n, block, exact.exact.data());
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

}  // namespace

void ColumnMaxima::add(const double* got, const double* exact, uint64_t rows, uint64_t width) {
  max_abs.resize(width, 0.0);
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < width; ++c) {
      const double e = std::fabs(got[r * width + c] - exact[r * width + c]);
      if (e > max_abs[c]) max_abs[c] = e;  // false for NaN
    }
}

void ColumnMaxima::merge(const ColumnMaxima& other) {
  if (max_abs.size() < other.max_abs.size()) max_abs.resize(other.max_abs.size(), 0.0);
  for (size_t c = 0; c < other.max_abs.size(); ++c)
    max_abs[c] = std::max(max_abs[c], other.max_abs[c]);
}

void ExactRows::compute(const oracle::Engine& engine, const TableSpec& spec,
                        const properties::PositionMap* positions, uint64_t first,
                        uint64_t first_pos, uint64_t n, bool need_rounded) {
  if (positions)
    return compute_rows(engine, spec, positions->positions(), &positions->order()[first], n,
                        need_rounded);
  engine.evaluate({first_pos, static_cast<int>(n), 0, spec.d_model / 2}, tile);
  lay_out(spec, n, need_rounded);
}

void ExactRows::compute_rows(const oracle::Engine& engine, const TableSpec& spec,
                             const RowPositions& positions, const uint64_t* rows, uint64_t n,
                             bool need_rounded) {
  oracle::evaluate_rows(engine, spec, positions, rows, n, tile);
  lay_out(spec, n, need_rounded);
}

void ExactRows::lay_out(const TableSpec& spec, uint64_t n, bool need_rounded) {
  const auto width = static_cast<size_t>(table_width(spec));
  exact.resize(n * width);
  rounded.resize(need_rounded ? n * width : 0);
  oracle::layout_rows(spec, tile, n, false, exact.data());
  if (need_rounded) oracle::layout_rows(spec, tile, n, true, rounded.data());
}

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
  t.under_test = properties::streamed_table(t.name, t.dtype, options.claim, t.spec, t.rows, t.read);
  t.column_maxima = options.column_max_abs;
  t.by_encoding = options.claim.kind != Claim::Kind::kModel;
  t.engine = oracle::make_fast_engine(t.exact_spec, t.by_encoding ? t.dtype : Dtype::kFloat64);
  t.block_rows = std::max<uint64_t>(1, options.block_elements / t.width);
  t.blocks = (t.rows + t.block_rows - 1) / t.block_rows;
  t.stripes = std::make_unique<Stripes>(t.rows, t.block_rows);
  return t;
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
    all.columns.merge(p.columns);
  }
  for (const measure::ConsistencyFigures& c : consistency) all.consistency.merge(c);
  return all;
}

}  // namespace pev::verify::pass
