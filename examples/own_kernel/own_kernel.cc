// Your kernel under peverify's whole property suite, in about ten lines.
#include <gtest/gtest.h>

#include <cmath>

#include "peverify/properties/peverify_properties.h"

// The kernel under test: a float32 PE table, the way many codebases write it.
void my_kernel(const pev::TableSpec& spec, uint64_t rows, double* out) {
  const int width = pev::table_width(spec);
  for (uint64_t r = 0; r < rows; ++r)
    for (int c = 0; c < width; ++c) {
      const pev::Column col = pev::column_at(spec, c);  // which pair, sin or cos
      const float w = std::pow(static_cast<float>(spec.base), -2.0f * col.pair / spec.d_model);
      const float a = static_cast<float>(spec.start + r) * w;
      out[r * width + c] = col.is_sin ? std::sin(a) : std::cos(a);
    }
}

int main(int argc, char** argv) {
  using namespace pev::properties;
  register_suite("MyKernel", [] {
    // Every layout (column_at), but no rotary recipe: the suite asks for what the kernel does.
    return callable("my-kernel", pev::Dtype::kFloat32, pev::Claim::model(pev::Dtype::kFloat32),
                    my_kernel, uint64_t{1} << 24, Scope::plain());
  });
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
