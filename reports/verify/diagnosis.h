// Naming the cause of a failing verify verdict (docs/design.md §8.1). Most real bugs are a
// declaration off by one field (the layout, the sign of sin, the first position, the base, the
// recipe, the precision), not noise: each declaration that differs from the user's in one field
// is judged with the same exact oracle on sampled rows of the same data, and one is named only
// when it passes there (or accounts for 99% of the failing elements). Otherwise the failure is
// `isolated`: the count and the places, never a guess. Internal to reports/verify.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "peverify/properties/under_test.h"
#include "peverify/reports/verify/verify.h"

namespace pev::reports {

// Runs only on a failing verdict (`failed`), reading sampled rows through `read` (rows in file
// order, as the pass reads them); a table at position ids is not diagnosed (said in the detail).
Diagnosis diagnose(const properties::RowReader& read, uint64_t rows, Dtype dtype,
                   const VerifyOptions& declared, const VerifyResult& failed);

nlohmann::json to_json(const Diagnosis& d);

// "diagnosis: layout: ..." (one line, no newline).
std::string to_text(const Diagnosis& d);

}  // namespace pev::reports
