// The property suite on every registry entry, each held to the claim it makes, with the known
// honest failures of crosscheck/expectations.tsv asserted as failures.
#include <gtest/gtest.h>

#include <cstdio>

#include "peverify/adapters/table_entry.h"
#include "peverify/core/registry.h"
#include "peverify/crosscheck/expectations_testutil.h"
#include "peverify/properties/gtest/register_suite.h"

int main(int argc, char** argv) {
  using namespace pev;
  const auto rules = crosscheck::read_expectation_rules("crosscheck/expectations.tsv");
  int registered = 0;
  for (const core::Implementation& e : core::registry()) {
    // CUDA entries: crosscheck/cuda/device_test.cc runs the suite on device results (label cuda).
    if (e.device == core::Device::kCuda) continue;
    properties::register_suite(
        e.name, [&e] { return adapters::registry_entry(e); },
        crosscheck::expectations_for(e.name, rules));
    ++registered;
  }
  // No CPU entry would register no test, and an empty run passes: fail instead.
  if (registered == 0) {
    std::fprintf(stderr, "registry_suite_test: no CPU entry in the registry\n");
    return 1;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
