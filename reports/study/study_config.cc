// The study's settings: the JSON a user passes to `peverify report --config`, and the position
// bands accuracy is reported in.
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string_view>

#include "peverify/encoding/model_presets.h"
#include "peverify/reports/study/study.h"
#include "peverify/support/atomic_file.h"
#include "peverify/tables/table_file.h"

namespace pev::reports::study {

std::vector<std::pair<uint64_t, uint64_t>> report_bands(uint64_t max_position) {
  std::vector<std::pair<uint64_t, uint64_t>> b = {
      {0, 1023}, {1024, 8191}, {8192, 65535}, {65536, (1u << 20) - 1}};
  b.push_back({uint64_t{1} << 20, std::max<uint64_t>(max_position, uint64_t{1} << 20)});
  return b;
}

namespace {

// A user's value in a one-line message (plain dump() throws on invalid UTF-8 and passes
// control bytes through).
std::string shown(const nlohmann::json& v) {
  return printable(v.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace), 80);
}

// A count: a whole number >= 0 that fits T. The plain get<T>() would wrap -1, and casting a
// float like 1e30 overflows (undefined behaviour).
template <typename T>
T count(const nlohmann::json& v, const std::string& path, const std::string& key) {
  constexpr T kMax = std::numeric_limits<T>::max();
  if (v.is_number_unsigned() && v.get<uint64_t>() <= kMax) return static_cast<T>(v.get<uint64_t>());
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (x >= 0 && x == std::floor(x) && x < static_cast<double>(kMax)) return static_cast<T>(x);
  }
  throw FileError(path + ": " + key + " must be a whole number >= 0 (at most " +
                  std::to_string(kMax) + "), not " + shown(v));
}

template <typename T>
std::vector<T> counts(const nlohmann::json& v, const std::string& path, const std::string& key) {
  if (!v.is_array()) throw FileError(path + ": " + key + " must be a list, not " + shown(v));
  std::vector<T> out;
  for (const nlohmann::json& x : v) out.push_back(count<T>(x, path, key));
  return out;
}

}  // namespace

StudyConfig read_study_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError("cannot read study config " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return study_config_from_json(text.str(), path);
}

StudyConfig study_config_from_json(std::string_view text, const std::string& path) {
  StudyConfig c;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object()) throw FileError(path + ": a study config is a JSON object");
    for (const auto& [key, value] : j.items()) {
      if (key == "d_models")
        c.d_models = counts<int>(value, path, key);
      else if (key == "bases")
        c.bases = value.get<std::vector<double>>();
      else if (key == "exhaustive_positions")
        c.exhaustive_positions = count<uint64_t>(value, path, key);
      else if (key == "exhaustive_values")
        c.exhaustive_values = count<uint64_t>(value, path, key);
      else if (key == "max_position")
        c.max_position = count<uint64_t>(value, path, key);
      else if (key == "sampled_blocks")
        c.sampled_blocks = count<int>(value, path, key);
      else if (key == "filter")
        c.filter = value.get<std::string>();
      else if (key == "bench")
        c.bench = value.get<bool>();
      else if (key == "rotary_models")
        c.rotary_models = value.get<std::vector<std::string>>();
      else if (key == "rotary_positions")
        c.rotary_positions = count<uint64_t>(value, path, key);
      else if (key == "framework_entries")
        c.framework_entries = value.get<std::map<std::string, std::string>>();
      else
        throw FileError(path + ": unknown study setting '" + printable(key) + "'");
    }
  } catch (const nlohmann::json::exception& e) {
    throw FileError(path + ": malformed study config: " + printable(e.what(), 200));
  }
  if (c.d_models.empty() || c.bases.empty()) throw FileError(path + ": no d_models or bases");
  for (int d : c.d_models)
    for (double b : c.bases)
      if (auto err = validate(grid_spec(d, b))) throw FileError(path + ": " + *err);
  if (c.max_position > kMaxPosition) throw FileError(path + ": max_position beyond 2^53");
  for (const std::string& m : c.rotary_models)
    if (!model_preset(m))
      throw FileError(path + ": rotary_models: no model preset '" + printable(m) +
                      "' (presets: " + model_preset_names() + ")");
  if (c.rotary_positions < 1 || c.rotary_positions > kMaxPosition)
    throw FileError(path + ": rotary_positions must be in [1, 2^53]");
  if (const auto problem = filter_problem(c.filter))
    throw FileError(path + ": filter is not a usable regular expression: " + *problem);
  return c;
}

std::optional<std::string> filter_problem(const std::string& filter) {
  // Escapes are followed as the regex compiler reads them: a back-reference's digits (\12...)
  // count like a repetition count's.
  bool in_braces = false, escaped = false;
  size_t digits = 0;
  for (const char c : filter) {
    const bool digit = c >= '0' && c <= '9';
    if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
      digits = 0;
      continue;
    } else if (c == '{') {
      in_braces = true;
    } else if (c == '}') {
      in_braces = false;
    }
    digits = digit ? digits + 1 : 0;
    if (digits > 9 || (in_braces && digits > 4))
      return "a count beyond 9999, or a number of ten digits or more";
  }
  try {
    (void)std::regex(filter);
  } catch (const std::regex_error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

}  // namespace pev::reports::study
