// Registry rotations as the applied-rotation properties take a kernel (the adapter
// table_entry.h is for tables), and q values as models hold them: the report's rotations
// section and the tests that judge core/rotation drive the entries through it.
#pragma once

#include <cstdint>
#include <vector>

#include "peverify/core/rotation/rotation_registry.h"
#include "peverify/properties/rotation_properties.h"

namespace pev::adapters {

// x (n x heads x head_dim doubles, each a value of e.input) through e.apply: the stored outputs
// come back widened to double.
std::vector<double> apply_rotation(const core::RotationImplementation& e, const RotationSpec& spec,
                                   const RowPositions& positions, const uint64_t* tokens,
                                   uint64_t n, int heads, const std::vector<double>& x);

// The entry as properties/rotation_properties.h takes a kernel, under the compute it claims.
properties::RotationUnderTest rotation_under_test(const core::RotationImplementation& e);

// Values of q as models hold them: normal with spread 1 to 8, a few tiny or zero, rounded to
// `dtype` (float32 or bfloat16) so that the input is exactly what the kernel reads.
std::vector<double> random_q(uint64_t size, Dtype dtype, uint64_t seed);

}  // namespace pev::adapters
