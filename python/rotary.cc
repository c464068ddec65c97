// peverify.verify_rotary (internal to the Python module): q or k before and after a RoPE kernel,
// as `peverify verify-rotary` judges them, from NumPy arrays or PyTorch tensors.
#include "peverify/python/rotary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pybind11/stl.h>

#include "peverify/encoding/request.h"
#include "peverify/encoding/vocabulary.h"
#include "peverify/python/arguments.h"
#include "peverify/python/array_table.h"
#include "peverify/python/results.h"
#include "peverify/python/sinusoids.h"
#include "peverify/verify/sinusoids/rotary_axes.h"
#include "peverify/verify/verify_rotary.h"

namespace py = pybind11;

namespace pev::python {
namespace {

// The keywords verify_rotary reads itself (the rest are arguments.h's, Function kRotary), with
// their defaults as the docstring shows them.
struct RotaryKeywords {
  std::string pairs = "halves", output_pairs, compute = "float32", axes;
  std::optional<int> rotary_dim;
  std::optional<std::string> rope_axes;  // RoPE over several axes at real ids (§16.2)
  py::object axis_ids;                   // with rope_axes: positions= are the axes' ids
  std::optional<double> axes_base;       // with rope_axes: base= is the axes' theta
  py::kwargs shared;                     // the rest, for arguments()
};
constexpr const char* kOwnKeywords[][2] = {{"rotary_dim", "None"},   {"pairs", "'halves'"},
                                           {"output_pairs", "None"}, {"axes", "None"},
                                           {"compute", "'float32'"}, {"rope_axes", "None"}};

std::string rotary_signature() {
  std::vector<std::string> own;
  for (const auto& [name, shown] : kOwnKeywords) own.push_back(fmt::format("{}={}", name, shown));
  return fmt::format("{}, {}", keyword_signature(kRotary), fmt::join(own, ", "));
}

RotaryKeywords rotary_keywords(const py::kwargs& kwargs) {
  RotaryKeywords r;
  const bool multi_axis = kwargs.contains("rope_axes");
  for (const auto& [k, v] : kwargs) {
    const std::string key = k.cast<std::string>();
    if (key == "rope_axes")
      r.rope_axes = text_of(v);
    else if (multi_axis && key == "positions")
      r.axis_ids = py::reinterpret_borrow<py::object>(v);
    else if (multi_axis && key == "base")
      r.axes_base = v.is_none() ? std::nullopt : std::optional(number_of(v, "base"));
    else if (key == "pairs")
      r.pairs = v.cast<std::string>();
    else if (key == "output_pairs")
      r.output_pairs = v.is_none() ? std::string() : v.cast<std::string>();
    else if (key == "compute")
      r.compute = v.cast<std::string>();
    else if (key == "axes")
      r.axes = v.cast<std::string>();
    else if (key == "rotary_dim")
      r.rotary_dim = v.cast<int>();
    else
      r.shared[k] = v;
  }
  if (multi_axis) {
    for (const char* k : {"rotary_dim", "model_config", "layer_type", "rope_scaling", "start"})
      if (kwargs.contains(k)) throw ConfigError(fmt::format("rope_axes= does not take {}=", k));
    if (!r.axis_ids) throw ConfigError("rope_axes= needs positions=: each token's ids, [axes, N]");
  }
  return r;
}

struct HostTensor {
  py::object array;  // [rows, head_dim] over host memory (kept alive while read)
  std::vector<uint64_t> shape;
  std::optional<std::string> dtype;
};

HostTensor host_tensor(const py::object& v, const std::optional<std::string>& dtype,
                       const char* what) {
  HostTensor h;
  auto [a, d] = host_array(v, dtype);
  h.dtype = d;
  a = py::module_::import("numpy").attr("ascontiguousarray")(a);
  for (const py::handle n : a.attr("shape")) h.shape.push_back(n.cast<uint64_t>());
  if (h.shape.size() < 2) throw ConfigError(fmt::format("{}: a tensor of rank >= 2", what));
  h.array = a.attr("reshape")(-1, py::int_(h.shape.back()));
  return h;
}

// An element of a rotation's verdict: an Element that also says where in the tensor it sits, as
// the command line names it (batch, sequence index, head).
struct RotaryElement : measure::Finding {
  uint64_t batch = 0, seq = 0, head = 0;
};

// A property of a rotation's verdict: a PropertyResult whose worst elements are RotaryElements.
struct RotaryProperty : properties::PropertyVerdict {
  std::vector<RotaryElement> rotary_worst;
};

RotaryProperty rotary_property(const properties::PropertyVerdict& v,
                               const verify::TensorGeometry& g) {
  RotaryProperty p{v, {}};
  for (const measure::Finding& f : v.worst) {
    const verify::TensorGeometry::Place at = g.place(f.row.value_or(0));
    p.rotary_worst.push_back({f, at.batch, at.seq, at.head});
  }
  return p;
}

std::vector<RotaryProperty> rotary_properties(const verify::VerifyRotaryResult& r) {
  std::vector<RotaryProperty> out;
  for (const properties::PropertyVerdict& v : r.verdicts)
    out.push_back(rotary_property(v, r.options.geometry));
  return out;
}

// verify_rotary(x, y, **kwargs): the rotation's verdict, or a SinusoidVerdict for rope_axes=.
py::object verify_rotary_call(const py::object& x, const py::object& y, const py::kwargs& kwargs) {
  const RotaryKeywords own = rotary_keywords(kwargs);
  const Arguments args = arguments(own.shared, kRotary);
  const HostTensor hx = host_tensor(x, args.dtype, "x"), hy = host_tensor(y, args.dtype, "y");
  if (hx.shape != hy.shape) throw ConfigError("x and y must have the same shape");
  verify::RotaryArguments ra;
  ra.shape = hx.shape;
  ra.axes = own.axes;
  ra.pairs = own.pairs;
  ra.output_pairs = own.output_pairs;
  ra.compute = own.compute;
  ra.rotary = table_request(args).rotary;
  if (own.rotary_dim) ra.rotary.d_model = *own.rotary_dim;
  ra.start = args.start;
  ra.positions = args.positions;
  ra.positions_name = "positions";
  ra.claim = args.claim;
  ra.threads = args.threads;
  ra.flag = "";
  const verify::VerifyRotaryOptions o = verify::resolve_rotary(std::move(ra));
  std::optional<verify::sinusoids::AxesRotation> declared;
  if (own.rope_axes)
    declared = verify::sinusoids::axes_rotation(parse_rope_axes(*own.rope_axes, own.axes_base), o,
                                                numbers_of(own.axis_ids, "positions"));
  const ArrayTable ax = array_table(hx.array, hx.dtype), ay = array_table(hy.array, hy.dtype);
  const auto reader = [](const TableStream& t) {
    return [&t](uint64_t first, uint64_t n, double* out) { t.read_rows(first, n, out); };
  };
  // The tensor's shape as the user gave it ([1, 8, 4096, 128]), not the rows it is read as.
  const auto as_given = [](const TableStream& t, const HostTensor& h) {
    const std::string d = t.description();
    return d.substr(0, d.rfind('[')) + fmt::format("[{}]", fmt::join(h.shape, ", "));
  };
  const verify::RotaryTensor in{"x", as_given(*ax.stream, hx), ax.stream->dtype(),
                                reader(*ax.stream)};
  const verify::RotaryTensor out{"y", as_given(*ay.stream, hy), ay.stream->dtype(),
                                 reader(*ay.stream)};
  py::gil_scoped_release release;
  if (declared) {
    verify::sinusoids::SinusoidVerdict v =
        verify::sinusoids::verify_rotary_axes(in, out, *declared);
    py::gil_scoped_acquire acquire;
    return py::cast(std::move(v));
  }
  verify::VerifyRotaryResult r = verify::verify_rotary(in, out, o);
  py::gil_scoped_acquire acquire;
  return py::cast(std::move(r));
}

void bind_rotary_element(py::module_& m) {
  py::class_<RotaryElement, measure::Finding>(
      m, "RotaryElement",
      "An Element of a rotation's verdict, with where it sits in the tensor: batch, seq (the "
      "sequence index), head; `row` is the tensor's row of head_dim values, `dim` the dimension "
      "within the head.")
      .def_readonly("batch", &RotaryElement::batch)
      .def_readonly("seq", &RotaryElement::seq)
      .def_readonly("head", &RotaryElement::head)
      .def("__repr__", [](const RotaryElement& f) {
        return fmt::format(
            "<RotaryElement batch={} seq={} head={} dim={} pos={} got={:a} expected={:a} "
            "abs_error={:.3g} budget={:.3g} {}>",
            f.batch, f.seq, f.head, f.column, f.pos, f.got, f.expected, f.error, f.allowed, f.what);
      });
}

void bind_rotary_property(py::module_& m) {
  py::class_<RotaryProperty, properties::PropertyVerdict>(
      m, "RotaryPropertyResult", "A PropertyResult whose worst elements are RotaryElements.")
      .def_readonly("worst", &RotaryProperty::rotary_worst,
                    "the worst elements, worst first, each naming its batch, seq and head");
}

void bind_rotary_verdict(py::module_& m) {
  py::class_<verify::VerifyRotaryResult>(
      m, "RotaryVerdict",
      "What peverify.verify_rotary found: holds, properties (rotation, pass-through), diagnosis, "
      "to_json() (as `peverify verify-rotary --json`), str() its text.")
      .def_property_readonly("holds", &verify::VerifyRotaryResult::holds)
      .def_property_readonly("properties", &rotary_properties,
                             "one RotaryPropertyResult per property: rotation, pass-through")
      .def_property_readonly(
          "diagnosis",
          [](const verify::VerifyRotaryResult& r) -> py::object {
            if (!r.diagnosis) return py::none();
            return from_json(verify::to_json(r)["diagnosis"]);
          },
          "dict: a failing verdict's cause (cause, detail, matches, explains), as Verdict's; "
          "None on a pass")
      .def(
          "result",
          [](const verify::VerifyRotaryResult& r, const std::string& name) {
            return rotary_property(property_named(r.verdicts, name), r.options.geometry);
          },
          py::arg("name"), "The result of one property: rotation, or pass-through")
      .def("to_json",
           [](const verify::VerifyRotaryResult& r) { return verify::to_json(r).dump(2); })
      .def("__bool__", &verify::VerifyRotaryResult::holds)
      .def("__str__", [](const verify::VerifyRotaryResult& r) { return verify::to_text(r); })
      .def("__repr__", [](const verify::VerifyRotaryResult& r) {
        return fmt::format("<peverify.RotaryVerdict {}>", r.holds() ? "PASS" : "FAIL");
      });
}

}  // namespace

void bind_rotary(py::module_& m) {
  bind_rotary_element(m);
  bind_rotary_property(m);
  bind_rotary_verdict(m);
  m.def(
      "verify_rotary", &verify_rotary_call, py::arg("x"), py::arg("y"),
      fmt::format(
          "verify_rotary(x, y, *, {}) -> RotaryVerdict\n\n"
          "q (or k) before (x) and after (y) a RoPE kernel: every element against the exact "
          "rotation of x, rounded once (as `peverify verify-rotary`). x and y: NumPy arrays or "
          "PyTorch tensors of shape [tokens, head_dim], [tokens, heads, head_dim] or rank 4 (axes "
          "'batch,heads,seq,dim', Hugging Face's, by default, or 'batch,seq,heads,dim'); a "
          "bfloat16 or CUDA tensor is copied to host memory once. pairs: 'halves' (rotate-half) "
          "or 'interleaved'; output_pairs: where each pair's outputs are written, when not there "
          "(DeepSeek-V3: pairs='interleaved', output_pairs='halves'). rope_axes: RoPE over several "
          "position axes (a preset of `peverify list --encodings`, or [16, 56, 56]) with "
          "positions= each token's real ids [axes, N]: a SinusoidVerdict. compute: how the kernel "
          "computes, for the model budget: float32, float32-fma, bfloat16 (Hugging Face with a "
          "bfloat16 model), float64, ggml (ggml-cpu: the angle by a recurrence over pairs).",
          rotary_signature())
          .c_str());
}

}  // namespace pev::python
