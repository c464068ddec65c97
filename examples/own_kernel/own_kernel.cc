// Your kernel under peverify's whole property suite, with no test framework: each property's
// verdict printed, exit status 1 when one fails (own_kernel_gtest.cc runs the same as GoogleTest
// tests).
#include <cmath>
#include <cstdio>

#include "my_kernel.h"
#include "peverify/properties/peverify_properties.h"

int main() {
  using namespace pev::properties;
  // Every layout (column_at), but no rotary recipe: the suite asks for what the kernel does.
  const auto kernel =
      callable("my-kernel", pev::Dtype::kFloat32, pev::Claim::model(pev::Dtype::kFloat32),
               my_kernel, uint64_t{1} << 24, Scope::plain());
  bool all_hold = true;
  for (const PropertyVerdict& v : run_suite(*kernel)) {
    std::printf("%s\n", describe(v).c_str());
    all_hold = all_hold && v.holds;
  }
  return all_hold ? 0 : 1;
}
