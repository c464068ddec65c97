// The study's settings: the JSON a user passes to `peverify report --config`, and the position
// bands accuracy is reported in.
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "encoding/model_presets.h"
#include "reports/study.h"
#include "tables/atomic_file.h"

namespace pev::reports {

std::vector<std::pair<uint64_t, uint64_t>> report_bands(uint64_t max_position) {
  std::vector<std::pair<uint64_t, uint64_t>> b = {
      {0, 1023}, {1024, 8191}, {8192, 65535}, {65536, (1u << 20) - 1}};
  b.push_back({uint64_t{1} << 20, std::max<uint64_t>(max_position, uint64_t{1} << 20)});
  return b;
}

StudyConfig read_study_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw FileError("cannot read study config " + path);
  StudyConfig c;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& [key, value] : j.items()) {
      if (key == "d_models")
        c.d_models = value.get<std::vector<int>>();
      else if (key == "bases")
        c.bases = value.get<std::vector<double>>();
      else if (key == "exhaustive_positions")
        c.exhaustive_positions = value.get<uint64_t>();
      else if (key == "exhaustive_values")
        c.exhaustive_values = value.get<uint64_t>();
      else if (key == "max_position")
        c.max_position = value.get<uint64_t>();
      else if (key == "sampled_blocks")
        c.sampled_blocks = value.get<int>();
      else if (key == "filter")
        c.filter = value.get<std::string>();
      else if (key == "bench")
        c.bench = value.get<bool>();
      else if (key == "rotary_models")
        c.rotary_models = value.get<std::vector<std::string>>();
      else if (key == "rotary_positions")
        c.rotary_positions = value.get<uint64_t>();
      else if (key == "framework_entries")
        c.framework_entries = value.get<std::map<std::string, std::string>>();
      else
        throw FileError(path + ": unknown study setting '" + key + "'");
    }
  } catch (const nlohmann::json::exception& e) {
    throw FileError(path + ": malformed study config: " + e.what());
  }
  if (c.d_models.empty() || c.bases.empty()) throw FileError(path + ": no d_models or bases");
  for (int d : c.d_models)
    for (double b : c.bases)
      if (auto err = validate(grid_spec(d, b))) throw FileError(path + ": " + *err);
  if (c.max_position > kMaxPosition) throw FileError(path + ": max_position beyond 2^53");
  for (const std::string& m : c.rotary_models)
    if (!model_preset(m))
      throw FileError(path + ": rotary_models: no model preset '" + m +
                      "' (presets: " + model_preset_names() + ")");
  if (c.rotary_positions < 1 || c.rotary_positions > kMaxPosition)
    throw FileError(path + ": rotary_positions must be in [1, 2^53]");
  try {
    (void)std::regex(c.filter);
  } catch (const std::regex_error&) {
    throw FileError(path + ": filter is not a valid regular expression");
  }
  return c;
}

}  // namespace pev::reports
