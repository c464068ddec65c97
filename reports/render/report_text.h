// The words and number formats the report's renderers share (internal to reports/): how a
// figure, a horizon or a limit is written, the same way in report.md, index.html and the CSVs.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "peverify/encoding/spec.h"

namespace pev::reports::render {

// A figure with 3 significant digits; "inf" for null (an infinite or undefined figure).
std::string figure_text(const nlohmann::json& x);
std::string csv_field(const std::string& s);
// A horizon for `target` out of an entry's horizons object: "16777215", or words when there is
// none ("never: the float16 output rounding alone exceeds 1e-4", "never: fails from position 1").
std::string horizon_text(const nlohmann::json& horizons, const std::string& target,
                         const std::string& dtype);

// The same as a phrase: "meets 1e-4 up to position 1039", "never meets 1e-4 (the float16 output
// rounding alone exceeds it)", "never meets 1e-2 beyond position 0".
std::string horizon_phrase(const nlohmann::json& horizons, const std::string& target,
                           const std::string& dtype);

// "cpu/precise/f64>f32/hwy" without its device: "precise/f64>f32/hwy".
std::string short_entry_name(const std::string& name);

// 3.75e9 values/s as "3.75 G/s".
std::string speed_text(const nlohmann::json& values_per_s);

// "holds", "FAILS" or "-" for an entry's verdict on `property`.
std::string verdict_cell(const nlohmann::json& entry, const std::string& property);

// The entry of report.json's "implementations" with this name; nullptr when there is none.
const nlohmann::json* entry_named(const nlohmann::json& report, const std::string& name);

// One sentence on what the study measured, on which machine and how long it took.
std::string study_sentence(const nlohmann::json& report);

}  // namespace pev::reports::render
