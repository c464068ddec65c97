#include "peverify/python/results.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pybind11/stl.h>

#include <string>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/vocabulary.h"
#include "peverify/verify/verify.h"

namespace py = pybind11;

namespace pev::python {
namespace {

// An attribute under the name it had before the names followed the JSON keys: it still reads, with
// a DeprecationWarning that names the new one.
template <class Class>
void deprecated_alias(Class& c, const char* old_name, const char* name) {
  c.def_property_readonly(
      old_name,
      [old_name, name](const py::object& self) {
        const std::string message =
            fmt::format("'{}' is deprecated: use '{}', as verify --json names it", old_name, name);
        if (PyErr_WarnEx(PyExc_DeprecationWarning, message.c_str(), 1) < 0)
          throw py::error_already_set();
        return self.attr(name);
      },
      fmt::format("Deprecated alias of `{}`.", name).c_str());
}

// A key of the verdict's JSON whose value is JSON already (dicts, lists, the dtype's name), so
// that it has one definition: to_json.
void json_key(py::class_<verify::VerifyResult>& c, const char* key, const char* doc) {
  c.def_property_readonly(
      key, [key](const verify::VerifyResult& r) { return from_json(verify::to_json(r)[key]); },
      doc);
}

}  // namespace

py::object from_json(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

properties::PropertyVerdict property_named(const std::vector<properties::PropertyVerdict>& verdicts,
                                           const std::string& name) {
  std::vector<std::string> names;
  for (const properties::PropertyVerdict& v : verdicts) {
    if (v.property == name) return v;
    names.push_back(v.property);
  }
  throw ConfigError(
      fmt::format("no property '{}' (this verdict has {})", name, fmt::join(names, ", ")));
}

namespace {

// JSON writes null where a value is not finite; the attributes keep the float (nan, inf).
void bind_element(py::module_& m) {
  py::class_<measure::Finding> element(
      m, "Element",
      "One element that broke (or came closest to) a property. The attributes are the keys of "
      "an element of `worst` in `peverify verify --json`; where the JSON has null (a value that "
      "is not finite) the attribute is that float. Deprecated aliases: position (pos), column "
      "(dim), exact (expected), error (abs_error), ulp (ulp_error), cause (what).");
  element.def_readonly("pos", &measure::Finding::pos, "the position (the table's row + start)")
      .def_property_readonly(
          "row",
          [](const measure::Finding& f) -> py::object {
            if (f.row) return py::int_(*f.row);
            return py::none();
          },
          "the table's row, for a table at position ids (positions=); None otherwise")
      .def_property_readonly(
          "stream",
          [](const measure::Finding& f) -> py::object {
            if (f.stream >= 0) return py::str(measure::stream_name(f.stream));
            return py::none();
          },
          "M-RoPE, where the row's streams differ: whose position pos is ('t', 'h' or 'w', the "
          "stream the element's pair takes its angle from); None otherwise")
      .def_readonly("dim", &measure::Finding::column, "the column")
      .def_readonly("got", &measure::Finding::got, "the table's value")
      .def_readonly("expected", &measure::Finding::expected,
                    "the exact value, or what an identity predicts")
      .def_readonly("abs_error", &measure::Finding::error, "|got - expected|")
      .def_readonly("ulp_error", &measure::Finding::ulp, "the error in ulps of the output")
      .def_readonly("budget", &measure::Finding::allowed, "the budget or tolerance it was held to")
      .def_readonly("what", &measure::Finding::what,
                    "the category (number, nan, inf, sign) or the identity (M_m, ...)")
      .def("__repr__", [](const measure::Finding& f) {
        return fmt::format(
            "<Element pos={} dim={} got={:a} expected={:a} abs_error={:.3g} budget={:.3g} {}>",
            f.pos, f.column, f.got, f.expected, f.error, f.allowed, f.what);
      });
  deprecated_alias(element, "position", "pos");
  deprecated_alias(element, "column", "dim");
  deprecated_alias(element, "exact", "expected");
  deprecated_alias(element, "error", "abs_error");
  deprecated_alias(element, "ulp", "ulp_error");
  deprecated_alias(element, "cause", "what");
}

void bind_property(py::module_& m) {
  py::class_<properties::PropertyVerdict> property(
      m, "PropertyResult",
      "One property's verdict: the attributes are the keys of an entry of `properties` in "
      "`peverify verify --json`. Deprecated alias: name (property).");
  property
      .def_readonly("property", &properties::PropertyVerdict::property,
                    in_words(vocabulary().suite_properties, "or").c_str())
      .def_readonly("holds", &properties::PropertyVerdict::holds)
      .def_readonly("summary", &properties::PropertyVerdict::summary)
      .def_readonly("notes", &properties::PropertyVerdict::notes)
      .def_readonly("checked", &properties::PropertyVerdict::checked,
                    "elements (or cases) looked at")
      .def_readonly("figures", &properties::PropertyVerdict::figures)
      .def_readonly("worst", &properties::PropertyVerdict::worst, "the worst elements, worst first")
      .def("__bool__", [](const properties::PropertyVerdict& v) { return v.holds; })
      .def("__repr__", [](const properties::PropertyVerdict& v) {
        return fmt::format("<PropertyResult {} {}: {}>", v.property, v.holds ? "holds" : "FAILS",
                           v.summary);
      });
  deprecated_alias(property, "name", "property");
}

void bind_verdict(py::module_& m) {
  py::class_<verify::VerifyResult> verdict(
      m, "Verdict",
      "What peverify.verify found: the attributes are the keys of `peverify verify --json`. "
      "Deprecated aliases: passed (holds), results (properties), coverage (oracle_coverage).");
  verdict.def_readonly("table", &verify::VerifyResult::table, "'array' for an array")
      .def_readonly("description", &verify::VerifyResult::description)
      .def_property_readonly("holds", &verify::VerifyResult::holds, "every property holds")
      .def_readonly("properties", &verify::VerifyResult::verdicts,
                    fmt::format("one PropertyResult per property: {}",
                                fmt::join(vocabulary().suite_properties, ", "))
                        .c_str())
      .def_readonly("oracle_coverage", &verify::VerifyResult::oracle_coverage)
      .def_readonly("source", &verify::VerifyResult::source,
                    "where the rotary parameters came from: the model config and the part of it "
                    "read (empty without one)")
      .def(
          "result",
          [](const verify::VerifyResult& r, const std::string& name) {
            return property_named(r.verdicts, name);
          },
          py::arg("name"),
          fmt::format("The result of one property: {}",
                      fmt::join(vocabulary().suite_properties, ", "))
              .c_str())
      .def(
          "to_json", [](const verify::VerifyResult& r) { return verify::to_json(r).dump(2); },
          "The same JSON `peverify verify --json` writes")
      .def("__bool__", &verify::VerifyResult::holds)
      .def("__str__", [](const verify::VerifyResult& r) { return verify::to_text(r); })
      .def("__repr__", [](const verify::VerifyResult& r) {
        return fmt::format("<peverify.Verdict {}>", r.holds() ? "PASS" : "FAIL");
      });
  json_key(verdict, "dtype", "the table's storage format: float64, float32, float16, bfloat16");
  json_key(verdict, "spec", "dict: d_model, base, schedule, layout, start, rope");
  json_key(verdict, "budget", "the budget, described");
  json_key(verdict, "claim", "dict: the claim the elements are held to");
  json_key(verdict, "elements", "elements the oracle judged");
  json_key(verdict, "outside_budget", "dict: total, nan, inf, sign, numeric");
  json_key(verdict, "sign_mismatches", "elements of the wrong sign within the budget");
  json_key(verdict, "vacuous_budget", "list: elements whose budget checks nothing useful");
  json_key(verdict, "seconds", "dict: seconds per stage");
  static const std::string diagnosis_doc = fmt::format(
      "dict: a failing verdict's cause (cause: {}; detail; matches: the flags of the declaration "
      "the data does match; explains: the share of failing elements it accounts for); None on a "
      "pass",
      in_words(vocabulary().diagnosis_causes, "or"));
  json_key(verdict, "diagnosis", diagnosis_doc.c_str());
  deprecated_alias(verdict, "passed", "holds");
  deprecated_alias(verdict, "results", "properties");
  deprecated_alias(verdict, "coverage", "oracle_coverage");
}

}  // namespace

void bind_results(py::module_& m) {
  bind_element(m);
  bind_property(m);
  bind_verdict(m);
}

}  // namespace pev::python
