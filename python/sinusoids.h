// verify() for the other sinusoidal tables (internal to the Python module; docs/features.md §16):
// timesteps= for a diffusion timestep embedding, rope_axes= for multi-axis RoPE, alibi=True for
// ALiBi's slopes, each returning a SinusoidVerdict.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "peverify/verify/sinusoids/declarations.h"

namespace pev::python {

// Whether verify()'s keywords ask for one of these tables.
bool asks_for_sinusoid(const pybind11::kwargs& kwargs);
// The verdict (a ValueError, through ConfigError, for bad arguments).
pybind11::object verify_sinusoid_array(const pybind11::object& table,
                                       const pybind11::kwargs& kwargs);

void bind_sinusoids(pybind11::module_& m);

// Numbers from an array-like (a tensor, NumPy, a list), each converted exactly to float64;
// ConfigError for complex, boolean, wider-than-double or non-finite values.
verify::sinusoids::Numbers numbers_of(const pybind11::handle& v, const std::string& name);
// A preset's name, a dict (as JSON) or a list of dims ("16,56,56").
std::string text_of(const pybind11::handle& v);

}  // namespace pev::python
