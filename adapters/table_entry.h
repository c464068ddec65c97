// The property suite's view of a registry entry: the adapter the registry's users (the study, the
// suite's registry run, the CUDA device tests) share. It lives here, not in properties/, so that
// the library users link for their own kernels does not pull in the registry.
#pragma once

#include <memory>

#include "peverify/core/implementation.h"
#include "peverify/properties/under_test.h"

namespace pev::adapters {

// A registry entry, held to the claim it makes.
std::unique_ptr<properties::UnderTest> registry_entry(const core::Implementation& impl);

}  // namespace pev::adapters
