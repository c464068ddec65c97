// The kernel under test: a float32 PE table, the way many codebases write it.
#pragma once

#include <cmath>
#include <cstdint>

#include "peverify/properties/peverify_properties.h"

inline void my_kernel(const pev::TableSpec& spec, uint64_t rows, double* out) {
  const int width = pev::table_width(spec);
  for (uint64_t r = 0; r < rows; ++r)
    for (int c = 0; c < width; ++c) {
      const pev::Column col = pev::column_at(spec, c);  // which pair, sin or cos
      const float w = std::pow(static_cast<float>(spec.base), -2.0f * col.pair / spec.d_model);
      const float a = static_cast<float>(spec.start + r) * w;
      out[r * width + c] = col.is_sin ? std::sin(a) : std::cos(a);
    }
}
