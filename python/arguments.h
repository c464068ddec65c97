// The Python module's keyword arguments (internal): read and checked like the command line's
// flags, then turned into the same requests (encoding/request.h). A wrong type, value or name is
// a ConfigError, hence a ValueError in Python.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "peverify/encoding/positions.h"
#include "peverify/encoding/request.h"

namespace pev::python {

// A keyword's value as a number (int or float, not bool): ConfigError naming `key` otherwise.
double number_of(const pybind11::handle& v, const char* key);

struct Arguments {
  std::optional<int> d_model;
  std::optional<double> base;
  Layout layout = Layout::kInterleaved;
  Schedule schedule = Schedule::kPaper;
  int64_t start = 0;
  Dtype compute = Dtype::kFloat32;
  bool ggml = false;  // compute='ggml' (Claim::ggml)
  Claim::Kind claim = Claim::Kind::kModel;
  std::optional<double> model_c;
  std::optional<ModelRope> model;
  std::vector<ModelRope> other_layer_types;  // RotaryRequest::other_layer_types
  std::string model_name = "model_config";   // how messages name it: a path, a preset, or this
  std::optional<RopeScaling> recipe;
  std::optional<std::string> dtype;  // verify: how to read 16-bit patterns; oracle: the output
  std::string engine = "fast";
  int threads = 0;
  // verify's positions=: the rows' position ids ([N], or [3, N] for M-RoPE).
  std::optional<RowPositions> positions;
};

// Position ids from an array-like of integers (numpy, a list, a PyTorch tensor through
// numpy.asarray): ValueError for floats, negative ids or another shape.
RowPositions position_ids_of(const pybind11::handle& v);

// The functions that read these keywords, as a set of bits: each keyword of the table in
// arguments.cc says which take it, so that what a function accepts and what its docstring lists
// come from one place.
enum Function : unsigned {
  kVerify = 1u << 0,
  kOracle = 1u << 1,
  kGenerate = 1u << 2,
  kRotary = 1u << 3,    // verify_rotary's keywords shared with verify (it reads its own too)
  kSinusoid = 1u << 4,  // verify's keywords a timestep, multi-axis or ALiBi table also takes
};

// "d_model=None, base=10000, ...": the keywords `f` takes with their defaults, in the table's
// order, for its docstring's signature.
std::string keyword_signature(Function f);

// The keywords `f` takes, read and checked; any other is a ValueError naming the ones it takes.
Arguments arguments(const pybind11::kwargs& kwargs, Function f);
TableRequest table_request(const Arguments& args);
ClaimRequest claim_request(const Arguments& args);
Dtype dtype_named(const std::string& name);

}  // namespace pev::python
