// verify's results as Python classes (Verdict, PropertyResult, Element), whose attributes are
// named and valued as the keys of `peverify verify --json` (verify/verify_output.cc).
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "peverify/properties/checks.h"

namespace pev::python {

// Python objects from nlohmann's JSON, through the json module (what to_json() users expect).
pybind11::object from_json(const nlohmann::json& j);

void bind_results(pybind11::module_& m);

// Verdict.result(name) and RotaryVerdict.result(name): the property named `name` among
// `verdicts` (a ValueError naming those there are when none is).
properties::PropertyVerdict property_named(const std::vector<properties::PropertyVerdict>& verdicts,
                                           const std::string& name);

}  // namespace pev::python
