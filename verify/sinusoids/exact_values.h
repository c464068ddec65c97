// The exact values a sinusoidal table's rows need (docs/features.md §16), computed once for each
// distinct (axis, position, frequency): Flux's 4096 tokens take 64 distinct rows and columns per
// image axis, a timestep table one per timestep.
#pragma once

#include <cstdint>
#include <vector>

#include "peverify/encoding/sinusoids/table.h"
#include "peverify/oracle/sinusoid.h"

namespace pev::verify::sinusoids {

// An axis's positions, each once, in order (-0 before +0: sin(-0 w) is -0, so the two zeros are
// two positions), and each given position's index among them: what the exact values and the exact
// rotation are computed once for.
struct DistinctPositions {
  std::vector<double> values;
  std::vector<uint32_t> index;  // index[i]: the i-th given position's place in `values`
  size_t index_of(double x) const;
};
DistinctPositions distinct_positions(const std::vector<double>& xs);

class ExactValues {
 public:
  // For rows `rows` of the positions (every row when empty), rounded to `target`.
  ExactValues(const SinusoidTable& table, const AxisPositions& positions, Dtype target, int threads,
              const std::vector<uint64_t>& rows = {});

  struct Value {
    double exact = 0, rounded = 0;
    bool exact_is_true = false;  // a zero column, or an angle of exactly 0: no rounding at all
    double angle = 0;            // scale x w in double: what a model budget grows with
  };
  // Element (row, column) rounded to the target; `row` must be one of the rows given.
  Value at(uint64_t row, int column) const { return at(row, column, target_); }
  // ... rounded to another format (one oracle evaluation serves every format).
  Value at(uint64_t row, int column, Dtype format) const;

 private:
  struct Axis {
    DistinctPositions positions;         // of the rows given (every row: index is by row)
    bool by_row = false;                 // positions.index is every row's
    std::vector<int> frequencies;        // the table's frequencies its columns use
    std::vector<int> local;              // table frequency -> index into `frequencies`, or -1
    std::vector<oracle::SinCos> values;  // [distinct][local frequency]
  };
  const SinusoidTable& table_;
  Dtype target_;
  const AxisPositions& positions_;
  std::vector<double> w_;  // each frequency in double
  std::vector<Axis> axes_;
};

}  // namespace pev::verify::sinusoids
