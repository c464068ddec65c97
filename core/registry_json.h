// The registry as JSON (`peverify list --json`, Python's peverify.list()): what each entry
// computes, how, the claim it makes and where it holds.
#pragma once

#include <nlohmann/json.hpp>

#include "peverify/core/implementation.h"

namespace pev::core {

nlohmann::json entry_json(const core::Implementation& e);
nlohmann::json registry_json();  // every entry, in the registry's order

}  // namespace pev::core
