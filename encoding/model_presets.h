// The model configs peverify knows by name (models/*.json, compiled in): the rotary part of real
// models' config.json, which the report's rotary section studies and `--model-config NAME`
// accepts instead of a path.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/model_config.h"

namespace pev {

struct ModelPreset {
  std::string name;         // the file's name without .json: "llama-3.1-8b"
  std::string config_json;  // its text
};

// Every preset, sorted by name.
const std::vector<ModelPreset>& model_presets();

// The preset's rotary parameters (of `layer_type`'s layers, model_rope_from_config); nullopt for
// an unknown name.
std::optional<ModelRope> model_preset(std::string_view name, std::string_view layer_type = {});

// "deepseek-v3, gpt-neox-20b, ...": the names, for messages.
std::string model_preset_names();

}  // namespace pev
