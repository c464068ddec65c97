// report.json: a study's result as data (docs/architecture.md §8, schema
// reports/study/report.schema.json), the canonical form every renderer (reports/render/) reads and
// `peverify recommend` reads back.
#pragma once

#include <nlohmann/json.hpp>

#include "peverify/reports/study/study.h"

namespace pev::reports::study {

inline constexpr int kReportSchemaVersion = 1;

nlohmann::json to_json(const StudyResult& study);
// One recommendation as report.json and `recommend --json` hold it; a plain cell's PyTorch code
// under "pytorch" (reports/study/snippets.h).
nlohmann::json to_json(const Recommendation& r);

}  // namespace pev::reports::study
