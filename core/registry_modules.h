// Each module of core/ adds its entries here; registry.cc calls them in this order.
#pragma once

#include <vector>

#include "peverify/core/implementation.h"

namespace pev::core {

void add_glibc_entries(std::vector<Implementation>& out);      // core/glibc
void add_sleef_entries(std::vector<Implementation>& out);      // core/sleef
void add_highway_entries(std::vector<Implementation>& out);    // core/highway
void add_precise_entries(std::vector<Implementation>& out);    // core/precise
void add_framework_entries(std::vector<Implementation>& out);  // core/frameworks
void add_cuda_entries(std::vector<Implementation>& out);       // core/cuda (none without CUDA)

// Entry names: device/strategy/compute>output/backend; a truncating bfloat16 output is "bf16t".
std::string entry_name(const Implementation& e);

}  // namespace pev::core
