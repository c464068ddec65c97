// peverify list: the registry, one entry per line, name first; --json for tools.
#include <fmt/format.h>

#include <bit>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
#include "cli/enum_option.h"
#include "core/cuda/modelled_bounds.h"
#include "core/registry.h"
#include "encoding/model_presets.h"

namespace pev::cli {
namespace {

// Every entry writes every layout.
nlohmann::json layout_names() {
  nlohmann::json names = nlohmann::json::array();
  for (Layout l : all_layouts()) names.push_back(name_of(l));
  return names;
}

// The rotary recipes the entry computes (docs/design.md §12).
nlohmann::json recipe_names(const core::Implementation& e) {
  nlohmann::json names = nlohmann::json::array();
  for (RopeType t : e.recipes) names.push_back(name_of(t));
  return names;
}

nlohmann::json to_json(const core::Implementation& e) {
  const bool available = !e.available || e.available();
  return {
      {"name", e.name},
      {"device", core::name_of(e.device)},
      {"strategy", core::name_of(e.strategy)},
      {"compute", name_of(e.compute)},
      {"output", name_of(e.output)},
      {"conversion", e.conversion == core::Conversion::kTruncate ? "truncate" : "nearest-even"},
      {"backend", core::name_of(e.backend)},
      {"layouts", layout_names()},
      {"recipes", recipe_names(e)},
      {"claim",
       {{"kind", e.claim.describe()}, {"c", e.claim.c}, {"output_ulps", e.claim.output_ulps}}},
      {"max_position", e.max_position},
      {"max_base", e.max_base},
      {"min_frequency", e.min_frequency},
      {"anchor_interval", e.anchor_interval},
      {"flags", e.flags},
      {"available", available},
      {"unavailable_reason", available ? "" : std::string(e.unavailable_reason)},
      {"description", e.description},
      {"modelled", e.device == core::Device::kCuda ? core::cuda::modelled_text(e) : std::string()}};
}

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
                     {"rope", describe(m.rope)}});
    } else {
      fmt::print("{:<18} rotary dim {:<4} (head {:<4}) base {:<9g} {}\n", p.name, m.rotary_dim,
                 m.head_dim, m.base, describe(m.rope));
    }
  }
  if (json) std::cout << all.dump(2) << "\n";
  return kExitOk;
}

int run_list(bool json) {
  if (json) {
    nlohmann::json all = nlohmann::json::array();
    for (const core::Implementation& e : core::registry()) all.push_back(to_json(e));
    std::cout << all.dump(2) << "\n";
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
  CLI::App* app = root.add_subcommand(
      "list", "List the registry's implementations (or, with --models, the model presets)");
  app->add_flag("--json", *json, "machine-readable JSON");
  app->add_flag("--models", *models,
                "the model presets --model-config accepts by name, and the report studies");
  commands.push_back(
      {app, [json, models] { return *models ? run_list_models(*json) : run_list(*json); }});
}

}  // namespace pev::cli
