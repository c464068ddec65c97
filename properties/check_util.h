// What the property checks share: where a pair's sin and cos sit in a row, a claim's budget for a
// value known only through the implementation's output, and rows handed over in chunks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/format.h"
#include "peverify/encoding/spec.h"
#include "peverify/measure/judge.h"
#include "peverify/properties/under_test.h"

namespace pev::properties::internal {

// The first column holding sin and cos of each pair (-1 where the layout has none).
struct PairColumns {
  int sin = -1, cos = -1;
};
std::vector<PairColumns> pair_columns(const TableSpec& spec);

// The largest |value| of a correctly rounded table: the attention factor, rounded up to the
// output format (1 for plain tables).
inline double value_bound(const TableSpec& spec, Dtype output) {
  const double att = attention_factor(spec);
  const double ulp = ulp_of(att, output);
  return std::ceil(att / ulp) * ulp;
}

// The claim's budget for a value known only through the implementation's output: the exact
// value may sit one output ulp away, in a binade with a larger ulp, so take the budget there.
inline double allowed_near(const measure::Judge& judge, uint64_t pos, int column, double steps,
                           double got, double bound) {
  const double a = std::fabs(got);
  return judge.allowed(pos, column, steps, std::min(bound, a + ulp_of(a, judge.output())));
}

// Hands the rows to `body` a few thousand at a time, so that a table of 131072 x 4096 is never
// copied whole: body(first row index, rows, number of rows).
template <typename Body>
void for_each_chunk(const UnderTest& ut, const TableSpec& spec, uint64_t count, Body body) {
  const uint64_t chunk = std::max<uint64_t>(1, (uint64_t{1} << 22) / table_width(spec));
  for (uint64_t first = 0; first < count; first += chunk) {
    const uint64_t n = std::min(chunk, count - first);
    TableSpec part = spec;
    part.start = spec.start + first;
    body(first, ut.rows(part, n), n);
  }
}

}  // namespace pev::properties::internal
