// consistent: every element's error against its column's own envelope (docs/mathematics.md §4.1 and
// §5). The model budget is the worst an unknown implementation could make; this is what the
// table itself makes around the element, so a corrupted element fails even inside the budget.
#pragma once

#include <cstdint>

#include "peverify/encoding/spec.h"
#include "peverify/measure/consistency.h"
#include "peverify/properties/checks.h"
#include "peverify/properties/position_map.h"
#include "peverify/properties/under_test.h"

namespace pev::properties {

// The verdict on figures gathered by measure::ConsistencyRun over a table's rows (verify feeds
// them a stripe at a time). The worst elements get their stored value (read from `ut`) and
// their exact value (the oracle), so a failure names the element, its value, the exact value
// and the error it was allowed.
class ConsistentCheck {
 public:
  // With `map`, the run went along its position order (figures' positions are indices into it).
  ConsistentCheck(const UnderTest& ut, const TableSpec& spec, const PositionMap* map = nullptr)
      : ut_(ut), spec_(spec), map_(map) {}
  PropertyVerdict verdict(const measure::ConsistencyFigures& figures) const;

 private:
  const UnderTest& ut_;
  TableSpec spec_;
  const PositionMap* map_;
};

// Rows spec.start .. spec.start + count - 1 of an implementation, in one run.
PropertyVerdict check_consistent(const UnderTest& ut, const TableSpec& spec, uint64_t count);

}  // namespace pev::properties
