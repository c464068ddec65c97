// The property suite on every registry entry, each held to the budget it claims, with the known
// honest failures of properties/expectations.tsv asserted as failures.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/registry.h"
#include "properties/expectations.h"
#include "properties/suite.h"

int main(int argc, char** argv) {
  using namespace pev::properties;
  const auto rules = read_expectation_rules("properties/expectations.tsv");
  for (const pev::core::Implementation& e : pev::core::registry()) {
    // CUDA entries: core/cuda/device_test.cc runs the suite on device results (label cuda).
    if (e.device == pev::core::Device::kCuda) continue;
    register_suite(
        e.name, [&e] { return registry_entry(e); }, expectations_for(e.name, rules));
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
