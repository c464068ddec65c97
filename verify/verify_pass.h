// verify's pass over a table (docs/mathematics.md §4.1), private to verify: the table as the pass
// sees it (its rows in the order the checks go along them, the engine of its exact values, its cut
// into blocks and stripes), the per-element checks it feeds, and the striped pass itself, which
// reads each block once, computes its exact values once and feeds every check from them.
#pragma once
#include <chrono>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "peverify/measure/consistency.h"
#include "peverify/oracle/engine.h"
#include "peverify/properties/accumulators.h"
#include "peverify/properties/under_test.h"
#include "peverify/verify/verify.h"

namespace pev::verify::pass {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
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
               uint64_t n, bool need_rounded);
  // Rows rows[0 .. n - 1] of a table at position ids `positions`.
  void compute_rows(const oracle::Engine& engine, const TableSpec& spec,
                    const RowPositions& positions, const uint64_t* rows, uint64_t n,
                    bool need_rounded);

 private:
  void lay_out(const TableSpec& spec, uint64_t n, bool need_rounded);  // tile -> exact, rounded
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
  bool column_maxima = false;  // VerifyOptions::column_max_abs
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

// Reads the table, validates its position ids and makes the engine and the cut.
PassTable set_up(TableInput table, const VerifyOptions& options);

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
// The largest |got - exact| of each column (empty when not asked for); NaN is not an error here
// (the oracle counts it).
struct ColumnMaxima {
  std::vector<double> max_abs;
  void add(const double* got, const double* exact, uint64_t rows, uint64_t width);
  void merge(const ColumnMaxima& other);
};

struct PassFigures {
  ColumnMaxima columns;
  properties::BoundedCheck::Part bounded;
  properties::OracleCheck::Part oracle;
  properties::UniqueCheck::Part unique;
  measure::ConsistencyFigures consistency;
  StageTimes times;
};

// Every stripe on `threads` threads, merged in block order.
PassFigures striped_pass(const PassTable& t, const ElementChecks& checks, int threads);

}  // namespace pev::verify::pass
