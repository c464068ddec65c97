#include "peverify/python/sinusoids.h"

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <string>
#include <vector>

#include "peverify/encoding/model_config.h"
#include "peverify/python/arguments.h"
#include "peverify/python/array_table.h"
#include "peverify/python/results.h"
#include "peverify/verify/sinusoids/alibi_verify.h"
#include "peverify/verify/sinusoids/declarations.h"

namespace py = pybind11;

namespace pev::python {
namespace {

const std::vector<std::string> kOwnKeywords = {"timesteps", "timestep_recipe", "rope_axes", "alibi",
                                               "alibi_max_bias"};

// The table (or ALiBi's vector, as one row) read in place as verify reads an array.
verify::sinusoids::SinusoidInput input_of(const py::object& table,
                                          const std::optional<std::string>& dtype, bool vector) {
  auto [host, host_dtype] = host_array(table, dtype);
  if (vector) host = py::module_::import("numpy").attr("asarray")(host).attr("reshape")(1, -1);
  ArrayTable a = array_table(host, host_dtype);
  verify::sinusoids::SinusoidInput in{"array",          a.stream->description(), a.stream->dtype(),
                                      a.stream->rows(), a.stream->width(),       {}};
  in.values.resize(in.rows * in.width);
  a.stream->read_rows(0, in.rows, in.values.data());
  return in;
}

}  // namespace

// A tensor (any device, any float type) goes through float64, which holds every value exactly.
verify::sinusoids::Numbers numbers_of(const py::handle& v, const std::string& name) {
  py::object np = py::module_::import("numpy");
  py::object a = py::reinterpret_borrow<py::object>(v);
  std::string type;
  if (py::hasattr(a, "detach") && py::hasattr(a, "cpu")) {  // a tensor: float64 holds every type
    type = py::str(a.attr("dtype")).cast<std::string>();
    if (type.rfind("torch.", 0) == 0) type = type.substr(6);
    if (type.find("complex") != std::string::npos || type == "bool")
      throw ConfigError(fmt::format("{} must be real numbers, got a {} tensor", name, type));
    a = a.attr("detach")().attr("cpu")();
    if (type.find("int") == std::string::npos) a = a.attr("double")();
    a = a.attr("numpy")();
  }
  a = np.attr("asarray")(a);
  const std::string kind = py::str(a.attr("dtype").attr("kind")).cast<std::string>();
  if (type.empty()) type = py::str(a.attr("dtype")).cast<std::string>();
  if (kind != "i" && kind != "u" && kind != "f")
    throw ConfigError(
        fmt::format("{} must be numbers (integers or floats), got dtype {}", name, type));
  if (kind == "f" && a.attr("dtype").attr("itemsize").cast<int>() > 8)
    throw ConfigError(fmt::format("{}: {} is not read exactly; convert it to float64", name, type));
  const py::int_ limit(int64_t{1} << 53);
  if (kind != "f" && !np.attr("all")(np.attr("less_equal")(np.attr("abs")(a), limit)).cast<bool>())
    throw ConfigError(name + ": an integer beyond 2^53");
  py::array_t<double, py::array::c_style | py::array::forcecast> d(a.attr("astype")("float64"));
  verify::sinusoids::Numbers n{name, type, {}, {d.data(), d.data() + d.size()}};
  for (py::ssize_t i = 0; i < d.ndim(); ++i) n.shape.push_back(static_cast<uint64_t>(d.shape(i)));
  for (size_t i = 0; i < n.values.size(); ++i)
    if (!std::isfinite(n.values[i]))
      throw ConfigError(fmt::format("{}: element {} is not finite", name, i));
  if (n.values.empty()) throw ConfigError(name + " is empty");
  return n;
}

std::string text_of(const py::handle& v) {
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::dict>(v))
    return py::module_::import("json").attr("dumps")(v).cast<std::string>();
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {  // rope_axes=[16, 56, 56]
    std::vector<std::string> dims;
    for (const py::handle d : v) dims.push_back(py::str(d).cast<std::string>());
    return fmt::format("{}", fmt::join(dims, ","));
  }
  throw ConfigError("expected a name, a dict or a list, got " +
                    py::str(v.get_type()).cast<std::string>());
}

bool asks_for_sinusoid(const py::kwargs& kwargs) {
  return kwargs.contains("timesteps") || kwargs.contains("rope_axes") ||
         (kwargs.contains("alibi") && py::bool_(kwargs["alibi"]));
}

py::object verify_sinusoid_array(const py::object& table, const py::kwargs& kwargs) {
  py::kwargs rest;  // the keywords verify() shares with the Transformer's tables
  for (const auto& [key, value] : kwargs) {
    const std::string k = py::str(key);
    if (std::find(kOwnKeywords.begin(), kOwnKeywords.end(), k) == kOwnKeywords.end() &&
        k != "positions")
      rest[key] = value;
  }
  const Arguments args = arguments(rest, kSinusoid);
  const Claim claim = resolve_claim(claim_request(args));
  const bool alibi = kwargs.contains("alibi") && py::bool_(kwargs["alibi"]);
  const int modes = kwargs.contains("timesteps") + kwargs.contains("rope_axes") + alibi;
  if (modes > 1)
    throw ConfigError("timesteps, rope_axes and alibi are three kinds of table: give one");
  // Each kind's own keywords, and the shared ones it has no use for, refused by name.
  const auto refuse = [&](std::initializer_list<const char*> keys, const char* mode) {
    for (const char* k : keys)
      if (kwargs.contains(k)) throw ConfigError(fmt::format("{} does not take {}=", mode, k));
  };
  if (alibi) refuse({"positions", "base", "layout", "timestep_recipe"}, "alibi=True");
  if (kwargs.contains("timesteps"))
    refuse({"positions", "layout", "base", "alibi_max_bias"}, "timesteps=");
  if (kwargs.contains("rope_axes")) refuse({"timestep_recipe", "alibi_max_bias"}, "rope_axes=");
  verify::sinusoids::SinusoidVerdict v;
  if (alibi) {
    const verify::sinusoids::SinusoidInput in = input_of(table, args.dtype, true);
    double max_bias = 8.0;
    if (kwargs.contains("alibi_max_bias")) {
      const py::handle m = kwargs["alibi_max_bias"];
      if (!py::isinstance<py::float_>(m) && !py::isinstance<py::int_>(m))
        throw ConfigError("alibi_max_bias must be a number, got " +
                          py::str(m.get_type()).cast<std::string>());
      max_bias = m.cast<double>();
    }
    py::gil_scoped_release release;
    v = verify::sinusoids::verify_alibi(in, max_bias, claim);
  } else if (kwargs.contains("timesteps")) {
    const TimestepRecipe recipe = parse_timestep_recipe(
        kwargs.contains("timestep_recipe") ? text_of(kwargs["timestep_recipe"]) : "diffusers");
    const verify::sinusoids::SinusoidInput in = input_of(table, args.dtype, false);
    const verify::sinusoids::Numbers ts = numbers_of(kwargs["timesteps"], "timesteps");
    const int width = static_cast<int>(in.width);
    const verify::sinusoids::SinusoidDeclaration d =
        verify::sinusoids::timestep_declaration(recipe, width, ts, in.rows);
    const auto alternatives = verify::sinusoids::timestep_alternatives(recipe, width, ts, in.rows);
    py::gil_scoped_release release;
    v = verify::sinusoids::verify_sinusoid(in, d, alternatives, claim, args.threads);
  } else {
    if (!kwargs.contains("positions"))
      throw ConfigError("rope_axes= needs positions=: each row's ids, [axes, N]");
    const RopeAxes axes = parse_rope_axes(text_of(kwargs["rope_axes"]), args.base);
    const verify::sinusoids::SinusoidInput in = input_of(table, args.dtype, false);
    const verify::sinusoids::SinusoidDeclaration d = verify::sinusoids::axes_declaration(
        axes, args.layout, numbers_of(kwargs["positions"], "positions"), in.rows, in.width);
    const auto alternatives = verify::sinusoids::axes_alternatives(axes, args.layout, d);
    py::gil_scoped_release release;
    v = verify::sinusoids::verify_sinusoid(in, d, alternatives, claim, args.threads);
  }
  return py::cast(std::move(v));
}

void bind_sinusoids(py::module_& m) {
  py::class_<verify::sinusoids::SinusoidVerdict>(
      m, "SinusoidVerdict",
      "verify()'s verdict on a timestep embedding, a multi-axis RoPE table or ALiBi slopes: the "
      "keys of `peverify verify --timesteps/--rope-axes/--alibi --json` as attributes.")
      .def_readonly("table", &verify::sinusoids::SinusoidVerdict::table)
      .def_readonly("description", &verify::sinusoids::SinusoidVerdict::description)
      .def_readonly("kind", &verify::sinusoids::SinusoidVerdict::kind)
      .def_readonly("declared", &verify::sinusoids::SinusoidVerdict::declaration)
      .def_readonly("positions", &verify::sinusoids::SinusoidVerdict::positions)
      .def_readonly("elements", &verify::sinusoids::SinusoidVerdict::elements)
      .def_readonly("max_abs_error", &verify::sinusoids::SinusoidVerdict::max_abs_error)
      .def_property_readonly("holds", &verify::sinusoids::SinusoidVerdict::holds,
                             "every property holds")
      .def_property_readonly(
          "properties",
          [](const verify::sinusoids::SinusoidVerdict& v) {
            return from_json(verify::sinusoids::to_json(v)["properties"]);
          },
          "each property: holds, judged, failed, summary and its worst elements (row, column, "
          "positions, got, exact, abs_error, allowed)")
      .def_property_readonly(
          "diagnosis",
          [](const verify::sinusoids::SinusoidVerdict& v) {
            return v.diagnosis ? from_json(verify::to_json(*v.diagnosis)) : py::none();
          },
          "a failing verdict's cause (cause, detail, matches), else None")
      .def(
          "to_json",
          [](const verify::sinusoids::SinusoidVerdict& v) {
            return verify::sinusoids::to_json(v).dump(2);
          },
          "the verdict as `--json` writes it (a string)")
      .def("__bool__", &verify::sinusoids::SinusoidVerdict::holds)
      .def(
          "__str__",
          [](const verify::sinusoids::SinusoidVerdict& v) { return verify::sinusoids::to_text(v); })
      .def("__repr__", [](const verify::sinusoids::SinusoidVerdict& v) {
        return fmt::format("<SinusoidVerdict {} {}: {}>", v.kind, v.table,
                           v.holds() ? "PASS" : "FAIL");
      });
}

}  // namespace pev::python
