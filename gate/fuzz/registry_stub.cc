// The budget file's fuzz target links this instead of the registry: the reader only asks whether
// an entry's name exists, and the real registry would build Highway, SLEEF and the rest with
// clang. The one entry it knows is the name the seeds use.
#include <string_view>

#include "peverify/core/registry.h"

namespace pev::core {

const Implementation* find_implementation(std::string_view name) {
  static const Implementation kEntry{.name = "cpu/pow/f32>f32/glibc"};
  return name == kEntry.name ? &kEntry : nullptr;
}

}  // namespace pev::core
