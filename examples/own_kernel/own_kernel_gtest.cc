// The same suite as GoogleTest tests, one per property (link peverify::properties_gtest).
#include <gtest/gtest.h>

#include "my_kernel.h"
#include "peverify/properties/gtest/register_suite.h"

int main(int argc, char** argv) {
  using namespace pev::properties;
  register_suite("MyKernel", [] {
    return callable("my-kernel", pev::Dtype::kFloat32, pev::Claim::model(pev::Dtype::kFloat32),
                    my_kernel, uint64_t{1} << 24, Scope::plain());
  });
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
