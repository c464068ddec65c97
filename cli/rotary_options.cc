#include "peverify/cli/rotary_options.h"

#include <fmt/format.h>

#include "peverify/encoding/request.h"

namespace pev::cli {

void add_rotary_options(CLI::App& app, RotaryOptions& o) {
  app.add_option("--model-config", o.model_config,
                 "a model's config.json (Hugging Face), or the name of a preset (`peverify list "
                 "--models`): the rotary dimension, rope_theta and rope_scaling; --d-model then "
                 "becomes optional");
  app.add_option("--layer-type", o.layer_type,
                 "with --model-config, the layers whose rotary parameters to read where they "
                 "differ, e.g. Gemma 3's sliding_attention (default: the full_attention layers')");
  app.add_option("--rope-scaling", o.rope_scaling,
                 "a rotary recipe as JSON, e.g. '{\"rope_type\": \"yarn\", \"factor\": 4, "
                 "\"original_max_position_embeddings\": 32768}'");
}

RotaryRequest rotary_request(const RotaryOptions& o, std::optional<int> d_model,
                             std::optional<double> base) {
  RotaryRequest q;
  q.d_model = d_model;
  q.base = base;
  if (!o.model_config.empty()) {
    q.model_name = o.model_config;
    q.model = model_config_at(o.model_config, o.layer_type);
    q.other_layer_types = other_layer_types(
        *q.model, [&](const std::string& name) { return model_config_at(o.model_config, name); });
    for (const std::string& w : q.model->warnings)
      fmt::print(stderr, "peverify: warning: {}: {}\n", o.model_config, w);
  } else if (!o.layer_type.empty()) {
    throw ConfigError("--layer-type needs --model-config (a config's layer types)");
  }
  if (!o.rope_scaling.empty())
    q.recipe = rope_scaling_from_json(o.rope_scaling, q.model ? q.model->max_position : 0);
  return q;
}

}  // namespace pev::cli
