// Writes NumPy .npy files (format version 1.0, little-endian, C order).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "peverify/encoding/spec.h"

namespace pev {

// The .npy descr of a dtype as peverify stores it: bfloat16 has no NumPy type, so it is stored
// as its uint16 bit patterns ('<u2').
std::string npy_descr(Dtype t);

// Writes rows x cols values a block of rows at a time (memory does not grow with the table):
// fill(first, n, out) writes the bit patterns of rows [first, first + n). complex_pairs: each
// pair of values is the real and imaginary part of one complex element, stored as NumPy's
// complex64 ('<c8', t float32) of shape [rows, cols / 2]; the bytes are the same.
using RowFill = std::function<void(uint64_t first, uint64_t n, uint64_t* out)>;
void write_npy_rows(const std::string& path, Dtype t, uint64_t rows, uint64_t cols,
                    const RowFill& fill, bool complex_pairs = false);

// Writes rows x cols values, given as bit patterns of `t` (low bits used), atomically to path.
void write_npy(const std::string& path, Dtype t, uint64_t rows, uint64_t cols,
               const std::vector<uint64_t>& bits);

}  // namespace pev
