// peverify.verify_rotary and its verdict (internal to the Python module).
#pragma once

#include <pybind11/pybind11.h>

namespace pev::python {

void bind_rotary(pybind11::module_& m);

}  // namespace pev::python
