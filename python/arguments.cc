#include "peverify/python/arguments.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>

#include "peverify/encoding/vocabulary.h"

namespace py = pybind11;

namespace pev::python {
namespace {

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

std::string type_name(const py::handle& v) {
  return py::str(py::type::of(v).attr("__name__")).cast<std::string>();
}

std::string text_of(const py::handle& v, const char* key) {
  if (!py::isinstance<py::str>(v))
    fail(fmt::format("{} must be a string, not {}", key, type_name(v)));
  return v.cast<std::string>();
}

int64_t integer_of(const py::handle& v, const char* key) {
  if (py::isinstance<py::bool_>(v) || !py::isinstance<py::int_>(v))
    fail(fmt::format("{} must be an integer, not {}", key, type_name(v)));
  try {
    return v.cast<int64_t>();
  } catch (const py::cast_error&) {
    fail(fmt::format("{} is out of range", key));
  }
}

template <class Enum, class Parse>
Enum enum_of(const py::handle& v, const char* key, Parse parse, const std::string& choices) {
  const std::string name = text_of(v, key);
  const std::optional<Enum> e = parse(name);
  if (!e) fail(fmt::format("unknown {} '{}' ({})", key, name, choices));
  return *e;
}

// JSON text of a dict (json.dumps), or the text itself.
std::string json_text(const py::handle& v, const char* key) {
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (!py::isinstance<py::dict>(v))
    fail(fmt::format("{} must be a dict or JSON text, not {}", key, type_name(v)));
  try {
    return py::module_::import("json").attr("dumps")(v).cast<std::string>();
  } catch (const py::error_already_set& e) {
    fail(fmt::format("{} is not JSON: {}", key, e.what()));
  }
}

// A config's keys one edit from a rotary key, as Python warnings (the command line's stderr
// lines).
ModelRope warned(ModelRope m, bool warn = true) {
  if (warn)
    for (const std::string& w : m.warnings)  // -1: warnings are errors here, raised as such
      if (PyErr_WarnEx(PyExc_UserWarning, ("peverify: " + w).c_str(), 2) < 0)
        throw py::error_already_set();
  return m;
}

// `warn`: the config's warnings as Python warnings (once: not again for its other layer types).
ModelRope model_of(const py::handle& v, const std::string& layer_type, bool warn = true) {
  if (py::isinstance<py::str>(v))
    return warned(model_config_at(v.cast<std::string>(), layer_type), warn);
  if (py::hasattr(v, "__fspath__"))
    return warned(model_config_at(py::module_::import("os").attr("fspath")(v).cast<std::string>(),
                                  layer_type),
                  warn);
  // A transformers PretrainedConfig: its to_dict() is the config.json it would save.
  const py::object dict = !py::isinstance<py::dict>(v) && py::hasattr(v, "to_dict")
                              ? v.attr("to_dict")()
                              : py::reinterpret_borrow<py::object>(v);
  try {
    return warned(model_rope_from_config(json_text(dict, "model_config"), layer_type), warn);
  } catch (const ConfigError& e) {
    fail(fmt::format("model_config: {}", e.what()));
  }
}

// What arguments() gathers before the model config, its layer type and a recipe are read
// together (the recipe may take the model's max_position_embeddings).
struct Reading {
  Arguments a;
  py::handle model, rope_scaling;
  std::string layer_type;
};

// One keyword: its name, its default as the docstring shows it, the functions that take it, and
// how its value is read. The table's order is the docstrings' order.
struct Keyword {
  const char* name;
  std::string shown_default;
  unsigned functions;
  void (*read)(const py::handle& v, const char* key, Reading& r);
};

constexpr unsigned kTables = kVerify | kOracle | kGenerate;
constexpr unsigned kAll = kTables | kRotary;

Claim::Kind budget_named(const std::string& b) {
  if (b == "model") return Claim::Kind::kModel;
  if (b == "faithful") return Claim::Kind::kFaithful;
  if (b == "strict") return Claim::Kind::kStrict;
  fail(fmt::format("unknown budget '{}' (model, faithful, strict)", b));
}

const std::vector<Keyword>& keywords() {
  static const std::vector<Keyword> table = {
      {"d_model", "None", kTables,
       [](const py::handle& v, const char* k, Reading& r) {
         const int64_t d = integer_of(v, k);
         if (d < 2 || d > (int64_t{1} << 20))
           fail(fmt::format("d_model must be in [2, 2^20], got {}", d));
         r.a.d_model = static_cast<int>(d);
       }},
      {"base", fmt::format("{:g}", default_base()), kAll | kSinusoid,
       [](const py::handle& v, const char* k, Reading& r) { r.a.base = number_of(v, k); }},
      {"layout", "'interleaved'", kTables | kSinusoid,
       [](const py::handle& v, const char* k, Reading& r) {
         std::vector<std::string> choices;
         for (Layout l : all_layouts()) choices.emplace_back(name_of(l));
         r.a.layout =
             enum_of<Layout>(v, k, parse_layout, fmt::format("{}", fmt::join(choices, ", ")));
       }},
      {"start", "0", kAll,  // checked with the command line's --start
       [](const py::handle& v, const char* k, Reading& r) { r.a.start = integer_of(v, k); }},
      {"positions", "None", kVerify | kRotary,
       [](const py::handle& v, const char*, Reading& r) { r.a.positions = position_ids_of(v); }},
      {"schedule", "'paper'", kTables,
       [](const py::handle& v, const char* k, Reading& r) {
         r.a.schedule = enum_of<Schedule>(v, k, parse_schedule, "paper, t2t");
       }},
      {"compute", "'float32'", kVerify | kSinusoid,
       [](const py::handle& v, const char* k, Reading& r) {
         ClaimRequest q;
         set_compute(q, text_of(v, k));
         r.a.compute = q.compute, r.a.ggml = q.ggml;
       }},
      {"budget", "'model'", kVerify | kRotary | kSinusoid,
       [](const py::handle& v, const char* k, Reading& r) {
         r.a.claim = budget_named(text_of(v, k));
       }},
      {"model_c", "None", kVerify | kSinusoid,
       [](const py::handle& v, const char* k, Reading& r) { r.a.model_c = number_of(v, k); }},
      {"model_config", "None", kAll,  // read once layer_type is known
       [](const py::handle& v, const char*, Reading& r) { r.model = v; }},
      {"layer_type", "None", kAll,
       [](const py::handle& v, const char* k, Reading& r) { r.layer_type = text_of(v, k); }},
      {"rope_scaling", "None", kAll,
       [](const py::handle& v, const char*, Reading& r) { r.rope_scaling = v; }},
      {"dtype", "None", kVerify | kOracle | kRotary | kSinusoid,
       [](const py::handle& v, const char* k, Reading& r) {
         r.a.dtype = text_of(v, k);
         if (*r.a.dtype != kComplex64) dtype_named(*r.a.dtype);  // complex64: oracle's, with polar
       }},
      {"engine", "'fast'", kOracle,
       [](const py::handle& v, const char* k, Reading& r) { r.a.engine = text_of(v, k); }},
      {"threads", "0", kAll | kSinusoid,
       [](const py::handle& v, const char* k, Reading& r) {
         // 0 is documented as all cores, like leaving it out; the rest is --threads' range.
         const int64_t t = integer_of(v, k);
         r.a.threads = resolve_threads(t == 0 ? std::nullopt : std::optional<int64_t>(t));
       }},
  };
  return table;
}

}  // namespace

std::string keyword_signature(Function f) {
  std::vector<std::string> shown;
  for (const Keyword& k : keywords())
    if (k.functions & f) shown.push_back(fmt::format("{}={}", k.name, k.shown_default));
  return fmt::format("{}", fmt::join(shown, ", "));
}

double number_of(const py::handle& v, const char* key) {
  if (py::isinstance<py::bool_>(v) ||
      !(py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v)))
    fail(fmt::format("{} must be a number, not {}", key, type_name(v)));
  return v.cast<double>();
}

Dtype dtype_named(const std::string& name) {
  const std::optional<Dtype> d = parse_dtype(name);
  if (!d) fail(fmt::format("unknown dtype '{}' (float64, float32, float16, bfloat16)", name));
  return *d;
}

Arguments arguments(const py::kwargs& kwargs, Function f) {
  Reading r;
  for (const auto& [key_handle, v] : kwargs) {
    const std::string key = key_handle.cast<std::string>();
    const auto& table = keywords();
    const auto k = std::find_if(table.begin(), table.end(), [&](const Keyword& k) {
      return (k.functions & f) && key == k.name;
    });
    if (k == table.end()) {
      std::vector<std::string> takes;
      for (const Keyword& t : table)
        if (t.functions & f) takes.emplace_back(t.name);
      fail(fmt::format("unknown argument '{}' (takes {})", key, fmt::join(takes, ", ")));
    }
    if (!v.is_none()) k->read(v, k->name, r);  // None: the default
  }
  Arguments& a = r.a;
  if (r.model) {
    a.model = model_of(r.model, r.layer_type);
    a.other_layer_types = other_layer_types(
        *a.model, [&](const std::string& name) { return model_of(r.model, name, false); });
    // A path or a preset names itself, as on the command line; a dict is "model_config".
    if (py::isinstance<py::str>(r.model)) a.model_name = r.model.cast<std::string>();
  }
  if (!r.model && !r.layer_type.empty())
    fail("layer_type needs model_config (a config's layer types)");
  // After model_config: a recipe alone may take the model's max_position_embeddings.
  if (r.rope_scaling)
    a.recipe = rope_scaling_from_json(json_text(r.rope_scaling, "rope_scaling"),
                                      a.model ? a.model->max_position : 0);
  return a;
}

RowPositions position_ids_of(const py::handle& v) {
  const py::module_ np = py::module_::import("numpy");
  py::array a;
  try {
    a = np.attr("asarray")(v).cast<py::array>();
  } catch (const py::error_already_set& e) {
    fail(fmt::format("positions must be an array of integers: {}", e.what()));
  }
  const char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u')
    fail(fmt::format("positions must be integers, not {} (a float id is where positions collide)",
                     py::str(a.dtype()).cast<std::string>()));
  std::vector<uint64_t> shape(a.shape(), a.shape() + a.ndim());
  const auto s = position_ids_shape(shape);
  if (!s)
    fail(
        fmt::format("positions must have shape [N] or [3, N] (dimensions of size 1 allowed), not "
                    "{}",
                    py::str(py::tuple(np.attr("shape")(a))).cast<std::string>()));
  if (kind == 'i' && np.attr("any")(np.attr("less")(a, 0)).cast<bool>())
    fail("positions holds a negative id");
  const auto ids = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(a);
  RowPositions p;
  p.streams.assign(s->streams, std::vector<uint64_t>(s->rows));
  for (uint64_t i = 0; i < s->streams * s->rows; ++i)
    p.streams[i / s->rows][i % s->rows] = ids.data()[i];
  return p;
}

TableRequest table_request(const Arguments& a) {
  TableRequest q;
  q.rotary.d_model = a.d_model;
  q.rotary.base = a.base;
  q.rotary.model = a.model;
  q.rotary.model_name = a.model_name;
  q.rotary.recipe = a.recipe;
  q.rotary.other_layer_types = a.other_layer_types;
  q.schedule = a.schedule;
  q.layout = a.layout;
  q.start = a.start;
  return q;
}

ClaimRequest claim_request(const Arguments& a) { return {a.claim, a.compute, a.model_c, a.ggml}; }

}  // namespace pev::python
