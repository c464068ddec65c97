// The per-element properties as accumulators, for one pass over a table read in blocks
// (`peverify verify`): each check holds what does not change (the spec, the claim), a Part holds
// what a set of rows gave. Blocks go to Parts in any order on any thread; Parts merged in a fixed
// order give the same figures whatever ran them. check_bounded, check_unique and check_oracle
// are these over an implementation's rows.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/measure/judge.h"
#include "peverify/properties/check_util.h"
#include "peverify/properties/checks.h"
#include "peverify/properties/position_map.h"
#include "peverify/properties/under_test.h"

namespace pev::properties {

inline constexpr uint64_t kNoPosition = std::numeric_limits<uint64_t>::max();

// One row's sin^2 + cos^2 check (bounded.cc): the pairs outside the tolerance, listed in `bad`.
using IdentityRow = int (*)(const Claim& claim, double pos, double steps_term, int pairs,
                            const int* sin_col, const int* cos_col, const double* rate,
                            const double* row, double bound, double att, double& worst_identity,
                            int* bad);

class BoundedCheck {
 public:
  struct Part {
    uint64_t checked = 0, violations = 0, not_finite = 0;
    uint64_t copies_differ = 0;  // elements that differ from the first copy of their value
    uint64_t nan = 0, out_of_range = 0, identity = 0;  // the other violations, by kind
    double worst_identity = 0;  // the worst |sin^2 + cos^2 - att^2| / tolerance
    double max_abs_value = 0;   // the largest finite |value|
    uint64_t first_violation = kNoPosition;
    std::vector<Finding> worst;
    void merge(const Part& other);
  };
  // With `map`, row indices are indices into its position order (and findings name file rows).
  BoundedCheck(const UnderTest& ut, const TableSpec& spec, const PositionMap* map = nullptr);
  // Rows spec.start + first .. spec.start + first + n - 1, row-major. `exact` (the exact values
  // of the same rows, or nullptr) only says which of two differing copies is the wrong one.
  void add(Part& part, uint64_t first, uint64_t n, const double* rows,
           const double* exact = nullptr) const;
  PropertyVerdict verdict(const Part& part) const;

 private:
  const UnderTest& ut_;
  TableSpec spec_;
  const PositionMap* map_;
  measure::Judge judge_;
  std::vector<internal::PairColumns> cols_;
  double bound_, att_;
  Claim claim_;
  // The pairs holding both functions: their columns and weighted angle per position.
  std::vector<int> sin_, cos_;
  std::vector<double> rate_;
  // Where the layout stores a value twice (rope-cos-dup, rope-sin-pairs, ...): the first copy's
  // column and the second's, which must hold the same bits.
  std::vector<std::pair<int, int>> copies_;
  IdentityRow identity_row_ = nullptr;
  static int* bad_pairs_buffer(size_t pairs);
};

class OracleCheck {
 public:
  struct Part {
    measure::Figures figures;
    std::vector<Finding> worst;
    // Per horizon target (horizon_targets()), the first position with an element that misses
    // it (kNoPosition: none): every element below it meets the target.
    std::vector<uint64_t> first_missed;
    void merge(const Part& other);
  };
  OracleCheck(const UnderTest& ut, const TableSpec& spec, const PositionMap* map = nullptr);
  // `exact` the exact values rounded to double, `rounded` correctly rounded to the output format
  // (both row-major in the spec's layout, as oracle::compute_table gives them); `rounded` may be
  // null for a model claim, which does not use it.
  void add(Part& part, uint64_t first, uint64_t n, const double* got, const double* exact,
           const double* rounded) const;
  PropertyVerdict verdict(const Part& part) const;

 private:
  const UnderTest& ut_;
  TableSpec spec_;
  const PositionMap* map_;
  measure::Judge judge_;
};

class UniqueCheck {
 public:
  struct Part {
    std::vector<std::pair<uint64_t, uint64_t>> hashes;  // (row hash, row index) in the partition
    double nearest = std::numeric_limits<double>::infinity();
    uint64_t nearest_at = 0;  // the later row of the nearest neighbours (a position)
    void merge(Part&& other);
  };
  // What the repeated rows turned out to be, over every partition.
  struct Result {
    uint64_t duplicates = 0;      // rows equal to an earlier row, the format not forcing it
    uint64_t format_limited = 0;  // rows equal to an earlier one as the exact table's are too
    uint64_t first_duplicate = kNoPosition, first_original = 0;
    uint64_t first_limited = kNoPosition, first_limited_original = 0;
    void merge(const Result& other);
  };
  // Rows are hashed into `partitions` sets; only those of `partition` are kept (a table of too
  // many rows to hold every hash is checked in several passes, one per partition).
  // With `map`, a row that repeats the previous one's positions is expected to repeat its values
  // and is not hashed.
  UniqueCheck(const UnderTest& ut, const TableSpec& spec, uint64_t count, uint64_t partitions = 1,
              uint64_t partition = 0, const PositionMap* map = nullptr);
  // `previous`: row first - 1 when first > 0 (for the distance to the block's first row).
  void add(Part& part, uint64_t first, uint64_t n, const double* rows,
           const double* previous) const;
  // Confirms repeated hashes by comparing rows, then asks the oracle whether the correctly
  // rounded table repeats them too. Sorts part.hashes.
  Result resolve(Part& part) const;
  PropertyVerdict verdict(const Result& result, const Part& distances) const;
  // How many partitions hold at most `max_rows` hashes each.
  static uint64_t partitions_for(uint64_t rows, uint64_t max_rows);

 private:
  const UnderTest& ut_;
  TableSpec spec_;
  uint64_t count_, partitions_, partition_;
  const PositionMap* map_;
  std::string name_of(uint64_t index) const;  // "position P", or the map's name of the index
};

// The hash of a row's bit patterns (+0 and -0 differ, as do NaN payloads).
uint64_t row_hash(const double* row, size_t width);

}  // namespace pev::properties
