// A NumPy array, a PyTorch CPU tensor or anything with the buffer protocol, read in place as a
// table (internal to the Python module): the same TableStream `peverify verify` reads files
// through, over the array's own memory.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "peverify/tables/table_stream.h"

namespace pev::python {

struct ArrayTable {
  pybind11::buffer_info buffer;  // keeps the memory alive (and pinned) while the table is read
  std::unique_ptr<TableStream> stream;
  bool copied = false;  // true when the strides forced a contiguous copy
};

// `dtype` reads 16-bit integer patterns as "bfloat16" or "float16" (a bfloat16 tensor passed as
// its uint16 view), and must agree with a float array's own type. Throws ConfigError with a
// one-line reason for any other dtype or shape.
ArrayTable array_table(const pybind11::object& table, const std::optional<std::string>& dtype);

// A PyTorch tensor as a NumPy array over host memory: a CUDA tensor is copied to the host once, a
// bfloat16 one viewed as int16 with dtype "bfloat16" (NumPy has no bfloat16). Anything else is
// returned as it is, with `dtype`.
std::pair<pybind11::object, std::optional<std::string>> host_array(
    const pybind11::object& v, const std::optional<std::string>& dtype);

}  // namespace pev::python
