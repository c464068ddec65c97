#include "peverify/core/registry_json.h"

#include "peverify/core/cuda/modelled_bounds.h"
#include "peverify/core/registry.h"

namespace pev::core {
namespace {

// Every entry writes every layout.
nlohmann::json layout_names() {
  nlohmann::json names = nlohmann::json::array();
  for (Layout l : all_layouts()) names.push_back(name_of(l));
  return names;
}

// The rotary recipes the entry computes (docs/mathematics.md §12).
nlohmann::json recipe_names(const core::Implementation& e) {
  nlohmann::json names = nlohmann::json::array();
  for (RopeType t : e.recipes) names.push_back(name_of(t));
  return names;
}

}  // namespace

nlohmann::json entry_json(const core::Implementation& e) {
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

nlohmann::json registry_json() {
  nlohmann::json all = nlohmann::json::array();
  for (const core::Implementation& e : core::registry()) all.push_back(entry_json(e));
  return all;
}

}  // namespace pev::core
