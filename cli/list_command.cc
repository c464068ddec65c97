// peverify list: the registry, one entry per line, name first; --json for tools.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "peverify/cli/command.h"
#include "peverify/cli/enum_option.h"
#include "peverify/core/cuda/modelled_bounds.h"
#include "peverify/core/registry.h"
#include "peverify/core/registry_json.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/encoding/sinusoids/rope_axes.h"
#include "peverify/encoding/sinusoids/timestep.h"

namespace pev::cli {
namespace {

// 2^k when the limit is a power of two, the number otherwise.
std::string position_text(uint64_t p) {
  if (p && (p & (p - 1)) == 0) return "2^" + std::to_string(std::countr_zero(p));
  return std::to_string(p);
}

// The model presets: name, rotary dimension, base and recipe.
int run_list_models(bool json) {
  nlohmann::json all = nlohmann::json::array();
  for (const ModelPreset& p : model_presets()) {
    const ModelRope m = model_rope_from_config(p.config_json);
    if (json) {
      all.push_back({{"name", p.name},
                     {"rotary_dim", m.rotary_dim},
                     {"head_dim", m.head_dim},
                     {"base", m.base},
                     {"max_position_embeddings", m.max_position},
                     {"rope", describe(m.rope)},
                     {"section", m.section},
                     {"layer_types", m.layer_types},
                     {"layer_type", m.layer_type}});
    } else {
      // Where the layers differ, the default layer type's recipe, and the others named.
      const std::string layers =
          m.layer_types.empty()
              ? ""
              : fmt::format(" [{}; --layer-type {}]", m.layer_type, fmt::join(m.layer_types, ", "));
      fmt::print("{:<22} rotary dim {:<4} (head {:<4}) base {:<9g} {}{}\n", p.name, m.rotary_dim,
                 m.head_dim, m.base, describe(m.rope), layers);
    }
  }
  if (json) std::cout << all.dump(2) << "\n";
  return kExitOk;
}

// The other sinusoidal tables verify takes (docs/features.md §16): the timestep recipes and the
// multi-axis RoPE presets, each with the models that build it and the file it was read from.
int run_list_encodings(bool json) {
  nlohmann::json timesteps = nlohmann::json::array(), axes = nlohmann::json::array();
  if (!json) fmt::print("timestep embeddings (verify --timesteps T.npy --timestep-recipe NAME):\n");
  for (const TimestepPreset& p : timestep_presets()) {
    const TimestepRecipe& r = p.recipe;
    timesteps.push_back({{"name", p.name},
                         {"models", p.models},
                         {"source", p.source},
                         {"max_period", r.max_period},
                         {"downscale_freq_shift", r.downscale_freq_shift},
                         {"flip_sin_to_cos", r.flip_sin_to_cos},
                         {"scale", r.scale},
                         {"time_factor", r.time_factor},
                         {"timestep_dtype", name_of(r.timestep_dtype)}});
    if (!json)
      fmt::print("  {:<12} {}\n  {:<12} {}; {}\n", p.name, describe(r), "", p.models, p.source);
  }
  if (!json)
    fmt::print("multi-axis RoPE (verify --rope-axes NAME --positions IDS.npy --layout L):\n");
  for (const RopeAxesPreset& p : rope_axes_presets()) {
    axes.push_back({{"name", p.name},
                    {"models", p.models},
                    {"source", p.source},
                    {"axes_dims", p.axes.dims},
                    {"theta", p.axes.base}});
    if (!json)
      fmt::print("  {:<14} {}\n  {:<14} {}; {}\n", p.name, describe(p.axes), "", p.models,
                 p.source);
  }
  if (json) {
    std::cout << nlohmann::json{{"timestep_recipes", timesteps}, {"rope_axes", axes}}.dump(2)
              << "\n";
  } else {
    fmt::print(
        "ALiBi slopes (verify --alibi [--alibi-max-bias 8]): the authors' rule, "
        "ofirpress/attention_with_linear_biases fairseq/models/transformer.py get_slopes\n");
  }
  return kExitOk;
}

int run_list(bool json) {
  if (json) {
    std::cout << core::registry_json().dump(2) << "\n";
    return kExitOk;
  }
  for (const core::Implementation& e : core::registry()) {
    const bool available = !e.available || e.available();
    fmt::print("{:<34} {:<20} pos<={:<8} {}{}\n", e.name, e.claim.describe(),
               position_text(e.max_position), e.description,
               available ? "" : fmt::format(" [unavailable: {}]", e.unavailable_reason));
  }
  return kExitOk;
}

}  // namespace

void add_list_command(CLI::App& root, std::vector<Command>& commands) {
  auto json = std::make_shared<bool>(false);
  auto models = std::make_shared<bool>(false);
  auto encodings = std::make_shared<bool>(false);
  CLI::App* app = root.add_subcommand(
      "list",
      "List the registry's implementations (or, with --models, the model presets; with "
      "--encodings, the timestep and multi-axis recipes)");
  app->add_flag("--json", *json, "machine-readable JSON");
  app->add_flag("--models", *models,
                "the model presets --model-config accepts by name, and the report studies");
  app->add_flag(
      "--encodings", *encodings,
      "the timestep-embedding recipes and multi-axis RoPE presets verify accepts by name");
  commands.push_back({app, [json, models, encodings] {
                        if (*models && *encodings)
                          throw UsageError("--models and --encodings are two lists: give one");
                        if (*encodings) return run_list_encodings(*json);
                        return *models ? run_list_models(*json) : run_list(*json);
                      }});
}

}  // namespace pev::cli
