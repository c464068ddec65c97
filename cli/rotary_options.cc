#include "cli/rotary_options.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/command.h"
#include "encoding/model_presets.h"
#include "tables/table_file.h"

namespace pev::cli {
namespace {

// A config is a few KiB; a file of megabytes is not one.
constexpr std::streamsize kMaxConfigBytes = std::streamsize{16} << 20;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read the model config {}", printable(path)));
  std::string text(static_cast<size_t>(kMaxConfigBytes) + 1, '\0');
  in.read(text.data(), kMaxConfigBytes + 1);
  if (in.bad()) throw UsageError(fmt::format("cannot read the model config {}", printable(path)));
  if (in.gcount() > kMaxConfigBytes)
    throw UsageError(fmt::format("{} is larger than 16 MiB: not a model config", printable(path)));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

}  // namespace

void add_rotary_options(CLI::App& app, RotaryOptions& o) {
  app.add_option("--model-config", o.model_config,
                 "a model's config.json (Hugging Face), or the name of a preset (`peverify list "
                 "--models`): the rotary dimension, rope_theta and rope_scaling; --d-model then "
                 "becomes optional");
  app.add_option("--rope-scaling", o.rope_scaling,
                 "a rotary recipe as JSON, e.g. '{\"rope_type\": \"yarn\", \"factor\": 4, "
                 "\"original_max_position_embeddings\": 32768}'");
}

RotaryRequest rotary_request(const RotaryOptions& o, std::optional<int> d_model,
                             std::optional<double> base) {
  RotaryRequest q;
  q.d_model = d_model;
  q.base = base;
  try {
    if (!o.model_config.empty()) {
      q.model_name = printable(o.model_config);
      std::error_code ec;
      if (std::filesystem::exists(o.model_config, ec))
        q.model = model_rope_from_config(read_text(o.model_config));
      else if (!(q.model = model_preset(o.model_config)))
        throw UsageError(fmt::format("no file {}, and no model preset of that name (presets: {})",
                                     q.model_name, model_preset_names()));
    }
    if (!o.rope_scaling.empty())
      q.recipe = rope_scaling_from_json(o.rope_scaling, q.model ? q.model->max_position : 0);
  } catch (const ConfigError& e) {
    throw UsageError(q.model_name.empty() ? std::string(e.what())
                                          : fmt::format("{}: {}", q.model_name, e.what()));
  }
  return q;
}

void apply_rotary_options(const RotaryOptions& o, std::optional<int> d_model,
                          std::optional<double> base, TableSpec& spec) {
  const RotaryRequest q = rotary_request(o, d_model, base);
  try {
    apply_rotary(q, spec);
  } catch (const ConfigError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace pev::cli
