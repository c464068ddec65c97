// --model-config and --rope-scaling: a rotary table's dimension, base and recipe from a model's
// Hugging Face config.json (or a recipe alone), shared by verify, oracle and generate.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/spec.h"

namespace pev::cli {

struct RotaryOptions {
  std::string model_config;  // path of a config.json
  std::string rope_scaling;  // a rope_scaling object as JSON text
  std::string layer_type;    // whose rotary parameters, where the config's layers differ
};

void add_rotary_options(CLI::App& app, RotaryOptions& o);

// The request the options make, with the explicit --d-model / --base (nullopt: not given); the
// config file (or preset) read and parsed. A bad file or config is a ConfigError naming the field
// (exit 2, like every bad input).
RotaryRequest rotary_request(const RotaryOptions& o, std::optional<int> d_model,
                             std::optional<double> base);

}  // namespace pev::cli
