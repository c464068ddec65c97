// Reads a .npy of numbers as hostile input (docs/features.md §16): timesteps (`--timesteps`, one
// per row) and the ids of multi-axis RoPE (`--positions` with `--rope-axes`), which may be integers
// of any width or floats (float64, float32, float16, bfloat16 as NumPy's 2-byte void), negative,
// and not whole: each is the exact value of the number stored. NaN, Inf and integers beyond 2^53
// (which a double would round) are refused with their index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "peverify/tables/table_file.h"

namespace pev {

struct NumberArray {
  std::vector<uint64_t> shape;  // as stored (C order), dimensions of size 1 kept
  std::vector<double> values;   // in C order, each exact
  std::string type;             // "int64", "float32", ...: how verdicts name it
};

NumberArray read_number_array(const ByteSource& src);
NumberArray read_number_array(const std::string& path);

}  // namespace pev
