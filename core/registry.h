// The registry: the one list of implementations. Tests, benchmarks, sweeps and reports iterate
// it; adding an implementation is adding one entry in its module's add_*_entries().
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "peverify/core/implementation.h"

namespace pev::core {

const std::vector<Implementation>& registry();
const Implementation* find_implementation(std::string_view name);

// "f64", "f32", "f16", "bf16" as entry names spell them.
std::string_view short_name(Dtype t);

}  // namespace pev::core
