// Reading back what the data was built with (docs/architecture.md §8.2). A table's row, or one head
// of a rotated token, holds per pair A cos(p w) and A sin(p w) (a rotation gives them as
// (x . y, x x y) / |x|^2); from the sampled rows and the declaration this recovers, with stated
// precision and stated limits:
//   - per row: whether it is a rotation at all (zeros, the identity, pairs of unequal norm), its
//     amplitude A (the attention factor applied) and the position its angles put it at;
//   - per pair: the frequency the angles advance at over the rows' declared positions, with the
//     phase they start from.
// The diagnosis turns the differences from the declaration into declarations to judge
// (readback_alternatives.cc): a read-back value is never a verdict by itself. Internal to verify.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "peverify/encoding/format.h"

namespace pev::verify::readback {

// One sampled row as the data gives it.
struct Row {
  uint64_t declared = 0;     // the position the declaration puts it at
  uint64_t index = 0;        // its row (a table) or token (a rotation) in the declared order
  std::vector<double> c, s;  // per pair A cos and A sin; s empty: the layout holds cos alone
  double error = 0;          // how far rounding may move one of c or s (absolute)
};

struct Observations {
  std::vector<Row> rows;            // in declared order
  std::vector<double> frequencies;  // the declared w_j
  double amplitude = 1;             // the declared attention factor
};

enum class RowState {
  kRotation,     // equal norms, angles that place it
  kZeros,        // every value 0: never written
  kIdentity,     // every angle 0 (cos A, sin 0): not rotated
  kNotRotation,  // the pairs' norms differ, or no position fits its angles
};

struct RowReading {
  RowState state = RowState::kNotRotation;
  std::optional<double> position;  // in [0, period): where its angles put it
  double amplitude = NAN;          // the median norm of its pairs (sin held), else NaN
};

struct PairReading {
  // The angle's slope over the declared positions (a line through every row within `residual`),
  // nullopt where the angles lie on no line: then the rows, not the frequency, differ.
  std::optional<double> frequency;
  double precision = INFINITY;  // +- on the frequency
  double phase = 0;             // the line's angle at position 0, in (-pi, pi]
  double residual = INFINITY;   // the largest distance of an angle from the line, radians
};

struct ReadBack {
  std::vector<RowReading> rows;     // one per Observations::rows
  std::vector<PairReading> pairs;   // one per pair
  double period = INFINITY;         // positions are read back modulo it (2 pi / lowest w)
  std::optional<double> amplitude;  // the median over the rotation rows, where sin is held
  std::vector<std::string> limits;  // what could not be read back, as the detail says it
  // The rows read back at a position other than the declared one (modulo `period`).
  size_t misplaced_rows() const;
};

ReadBack read_back(const Observations& o);

// One row's reading (what read_back gives each row): a probe of rows the sample does not hold.
RowReading read_row(const Row& r, const Observations& o);

// Whether the data's errors carry the signature of a computation in `narrower`, in three turning
// pairs in four at least: for a format coarser than float32, an eighth of the elements off by a
// sixteenth of its rounding of their value (among those where that stands above what float32's
// angle may add); for float32 itself, an element off by a sixteenth of its rounding of value and
// angle. A clean float32 table with one wrong field does not: its errors
// are confined to the pairs or rows the field moves, and of float32's size elsewhere; and where sin
// is held, most pairs' angles lie on no clean line (a wrong frequency draws one).
bool has_signature_of(const Observations& o, const ReadBack& r, Dtype narrower);

// "pairs 12..63 (52 of 64): w read back 0.42 .. 0.97 of the declared": the pairs whose read-back
// frequency differs from the declared one beyond its precision; empty where none does.
std::string differing_pairs(const ReadBack& r, const std::vector<double>& declared);

}  // namespace pev::verify::readback
