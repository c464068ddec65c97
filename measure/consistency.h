// Whether each element's error is consistent with the errors around it in its column
// (docs/mathematics.md §4.1). Honest implementations make errors that vary smoothly along a column:
// a frequency error times the position, the angle's rounding (a staircase in ulps of the angle),
// the sin/cos routine's relative error and the output's rounding. A corrupted element stands out
// from its neighbours even where the claim's worst-case budget would let it through.
//
// The envelope of an element is the second largest error among the other elements of its window
// in its column: its group of rows (group_rows, aligned to the table's first row) and
// groups_each_side groups either side; at the table's ends the window keeps its width and moves
// inwards. The second largest, not the
// largest, so that one other corrupted element in the window hides nothing. An element is
// inconsistent when its error exceeds `factor` times its envelope and `resolution_ulps` ulps of
// the output at its exact value (rounding alone never is). The numbers are in
// encoding/claims.json ("consistency").
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/spec.h"
#include "peverify/measure/judge.h"

namespace pev::measure {

struct ConsistencyFigures {
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  uint64_t judged = 0;       // elements compared with their envelope
  uint64_t unjudged = 0;     // in a window of fewer than 3 rows (no second largest to compare)
  uint64_t not_numbers = 0;  // NaN or Inf: not compared (bounded and the oracle fail them)
  uint64_t inconsistent = 0;
  uint64_t first_inconsistent = kNone;  // the smallest position of an inconsistent element
  // The largest error / envelope among the judged elements above the output's resolution: how
  // close the table came to the factor.
  double worst_ratio = 0;
  // The worst inconsistent elements: pos, column, error, and `allowed` = factor x envelope;
  // `got` and `expected` are left for the caller, which can read them (ratio order is kept).
  std::vector<Finding> worst;
  void merge(const ConsistencyFigures& other);
};

// One run of consecutive rows of a table, fed in order. Rows given with judged = false (the
// rows either side of a stripe of a table split between threads) shape the envelope of the rows
// next to them but are not judged themselves; a stripe judged with its neighbours' rows gives
// the same verdicts as the whole table.
class ConsistencyRun {
 public:
  // `first_row`: the table row (0-based) of the first row fed, a multiple of the group size;
  // `start`: the position of table row 0.
  ConsistencyRun(Dtype output, int width, uint64_t first_row, uint64_t start);

  // n rows, row-major: the stored values widened to double and the exact values.
  void add(const double* got, const double* exact, uint64_t n, bool judged);
  // Judges what is still waiting for rows that will not come (the end of the table or stripe).
  void finish();
  const ConsistencyFigures& figures() const { return figures_; }

  static int group_rows();
  static int groups_each_side();

 private:
  struct Group {
    uint32_t rows = 0;
    bool judged = false;
    std::vector<float> top;  // the three largest errors of each column: top[k * width + c]
    // Each element's error: negative above the output's resolution at its exact value, NaN for
    // a value that is NaN or Inf.
    std::vector<float> errors;
  };
  Group& slot(int64_t g) { return groups_[static_cast<size_t>(g) % groups_.size()]; }
  void open_group(int64_t g, bool judged);
  void judge(int64_t g);

  Dtype output_;
  int width_;
  uint64_t start_;
  int g_rows_, each_side_;
  double factor_, resolution_;
  std::vector<Group> groups_;  // a ring of 2 x each_side + 1 groups
  int64_t first_group_, current_ = -1, next_to_judge_;
  std::vector<float> window_floor_;  // per column: a lower bound of the window's 3rd largest
  ConsistencyFigures figures_;
};

}  // namespace pev::measure
