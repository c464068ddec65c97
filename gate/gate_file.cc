// The budget file of `peverify check`: read as user input (every schema problem one line naming
// the field in words), completed with defaults, written back with the records that can regress.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "peverify/core/registry.h"
#include "peverify/gate/gate.h"
#include "peverify/support/atomic_file.h"
#include "peverify/tables/table_file.h"

namespace pev::gate {
namespace {

using nlohmann::json;

// Where a problem is: "budgets.json: subject 2 (pe.npy)".
struct Place {
  std::string file, what;
  [[noreturn]] void fail(const std::string& problem) const {
    throw FileError(printable(file, 160) + ": " + (what.empty() ? "" : what + ": ") + problem);
  }
};

std::string type_of(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "true or false";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "a list";
  return "an object";
}

// A user's value in a one-line message (plain dump() throws on invalid UTF-8 and passes
// control bytes through).
std::string shown(const json& v) {
  return printable(v.dump(-1, ' ', true, json::error_handler_t::replace), 80);
}

const json* member(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

double number(const json& v, const std::string& field, const Place& at) {
  if (!v.is_number()) at.fail(fmt::format("\"{}\" must be a number, not {}", field, type_of(v)));
  return v.get<double>();
}

// A column group's records: non-negative numbers, at most 128 (column_group_width).
std::vector<double> column_records(const json& v, const std::string& field, const Place& at) {
  if (!v.is_array() || v.empty() || v.size() > 128)
    at.fail(fmt::format("\"{}\" must be a list of 1 to 128 numbers", field));
  std::vector<double> records;
  for (const json& x : v) {
    records.push_back(number(x, field, at));
    if (!(records.back() >= 0)) at.fail(fmt::format("\"{}\" must hold numbers >= 0", field));
  }
  return records;
}

// d_model is an int: a larger whole number would wrap into a plausible one.
constexpr int64_t kMaxWhole = int64_t{1} << 62, kMaxDModel = int64_t{1} << 20;

int64_t whole(const json& v, const std::string& field, const Place& at, int64_t min,
              int64_t max = kMaxWhole) {
  const double x = number(v, field, at);
  if (x != std::floor(x) || x < static_cast<double>(min) || x > static_cast<double>(max))
    at.fail(fmt::format("\"{}\" must be a whole number in [{}, {}], not {}", field, min, max,
                        shown(v)));
  return static_cast<int64_t>(x);
}

std::string text(const json& v, const std::string& field, const Place& at) {
  if (!v.is_string()) at.fail(fmt::format("\"{}\" must be a string, not {}", field, type_of(v)));
  return v.get<std::string>();
}

std::string resolve(const std::string& budget_file, const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(budget_file).parent_path() / path).string();
}

// The fields only a table subject takes (a registry entry is measured on the grid).
constexpr const char* kTableFields[] = {"d_model",    "base",         "start",    "layout",
                                        "schedule",   "dtype",        "tensor",   "model_config",
                                        "layer_type", "rope_scaling", "positions"};

// A table subject's own fields, paths relative to the budget file.
void read_table_fields(const json& s, const BudgetFile& f, const std::string& path, const Place& at,
                       GateSubject& g) {
  g.table_path = resolve(path, g.table);
  if (const json* v = member(s, "d_model"))
    g.d_model = static_cast<int>(whole(*v, "d_model", at, 2, kMaxDModel));
  if (const json* v = member(s, "base")) g.base = number(*v, "base", at);
  if (const json* v = member(s, "start")) g.spec.start = whole(*v, "start", at, 0);
  if (const json* v = member(s, "layout")) {
    const auto l = parse_layout(text(*v, "layout", at));
    if (!l) at.fail(fmt::format("\"layout\" {} is not a layout peverify knows", shown(*v)));
    g.spec.layout = *l;
  }
  if (const json* v = member(s, "schedule")) {
    const auto sc = parse_schedule(text(*v, "schedule", at));
    if (!sc) at.fail(fmt::format("\"schedule\" {} is neither paper nor t2t", shown(*v)));
    g.spec.schedule = *sc;
  }
  if (const json* v = member(s, "dtype")) {
    g.dtype = text(*v, "dtype", at);
    if (!parse_dtype(g.dtype)) at.fail(fmt::format("\"dtype\" {} is not a format", shown(*v)));
  }
  if (const json* v = member(s, "tensor")) g.tensor = text(*v, "tensor", at);
  if (const json* v = member(s, "model_config")) {
    g.model_config = text(*v, "model_config", at);
    g.model_config_path = resolve(path, g.model_config);
  }
  if (const json* v = member(s, "layer_type")) g.layer_type = text(*v, "layer_type", at);
  if (const json* v = member(s, "positions")) {
    g.positions = text(*v, "positions", at);
    g.positions_path = resolve(path, g.positions);
    if (member(s, "start")) at.fail("\"start\" and \"positions\" both say where the rows are");
  }
  if (const json* v = member(s, "rope_scaling")) {
    if (!v->is_object())
      at.fail("\"rope_scaling\" must be an object (a recipe, as in a config.json), not " +
              type_of(*v));
    g.rope_scaling = *v;
  }
  g.spec.d_model = g.d_model.value_or(0);  // 0: from the config, else the table's width
  g.spec.base = g.base.value_or(f.base);
}

// The records per band ("budgets"), as --update writes them.
void read_records(const json& budgets, const Place& at, GateSubject& g) {
  if (!budgets.is_object()) at.fail("\"budgets\" must be an object, not " + type_of(budgets));
  for (const auto& [band, record] : budgets.items()) {
    const std::string field = "budgets." + printable(band);
    if (!record.is_object()) at.fail(fmt::format("\"{}\" must be an object", field));
    BandFigures b;
    for (const auto& [key, value] : record.items()) {
      const std::string name = field + "." + printable(key);
      if (key == "max_abs")
        b.max_abs = number(value, name, at);
      else if (key == "max_ulp")
        b.max_ulp = number(value, name, at);
      else if (key == "max_budget_ratio")
        b.max_budget_ratio = number(value, name, at);
      else if (key == "column_max_abs")
        b.column_max_abs = column_records(value, name, at);
      else
        at.fail(fmt::format(
            "unknown record \"{}\" (max_abs, max_ulp, max_budget_ratio, column_max_abs)", name));
      if (value.is_number() && !(value.get<double>() >= 0))
        at.fail(fmt::format("\"{}\" must be >= 0", name));
    }
    g.records[band] = b;
  }
}

GateSubject read_subject(const json& s, const BudgetFile& f, const std::string& path, size_t i) {
  Place at{path, fmt::format("subject {}", i + 1)};
  if (!s.is_object()) at.fail("must be an object, not " + type_of(s));
  const auto table_field = [](const std::string& key) {
    return std::find(std::begin(kTableFields), std::end(kTableFields), key) !=
           std::end(kTableFields);
  };
  for (const auto& [key, value] : s.items())
    if (key != "impl" && key != "table" && key != "budgets" && !table_field(key))
      at.fail(fmt::format("unknown field \"{}\"", printable(key)));
  GateSubject g;
  if (const json* v = member(s, "impl")) g.impl = text(*v, "impl", at);
  if (const json* v = member(s, "table")) g.table = text(*v, "table", at);
  if (g.impl.empty() == g.table.empty())
    at.fail("names exactly one of \"impl\" (a registry entry) and \"table\" (a file)");
  at.what += " (" + printable(g.impl.empty() ? g.table : g.impl) + ")";
  if (!g.impl.empty()) {
    if (!core::find_implementation(g.impl)) at.fail("no registry entry of that name");
    for (const char* k : kTableFields)
      if (member(s, k))
        at.fail(fmt::format(
            "\"{}\" applies to table files: a registry entry is measured on the grid", k));
  } else {
    read_table_fields(s, f, path, at, g);
  }
  if (const json* budgets = member(s, "budgets")) read_records(*budgets, at, g);
  return g;
}

nlohmann::json record_json(const BandFigures& b) {
  json r = json::object();
  if (!std::isnan(b.max_abs)) r["max_abs"] = b.max_abs;
  if (!std::isnan(b.max_ulp)) r["max_ulp"] = b.max_ulp;
  if (!std::isnan(b.max_budget_ratio)) r["max_budget_ratio"] = b.max_budget_ratio;
  if (!b.column_max_abs.empty()) r["column_max_abs"] = b.column_max_abs;
  return r;
}

}  // namespace

std::string GateBand::name() const { return std::to_string(first) + "-" + std::to_string(last); }

std::vector<GateBand> default_bands() {
  return {{0, 4095}, {4096, 65535}, {65536, 1048575}, {1048576, 16777215}};
}

Ceilings ceilings_of(const TableSpec& spec, Dtype output) {
  return {attention_factor(spec), std::ldexp(1.0, traits_of(output).precision)};
}

double round_up_2(double x) {
  if (!(x > 0) || !std::isfinite(x)) return x;
  const double step = std::pow(10.0, std::floor(std::log10(x)) - 1);
  double r = std::strtod(fmt::format("{:.1e}", std::ceil(x / step) * step).c_str(), nullptr);
  while (r < x) r = std::strtod(fmt::format("{:.1e}", r + step).c_str(), nullptr);
  return r;
}

double next_below_2(double record) {
  if (!(record > 0) || !std::isfinite(record)) return record;
  // The largest two-digit value below the record: 1.0e-3 -> 9.9e-4, 4.4e7 -> 4.3e7.
  const double step = std::pow(10.0, std::floor(std::log10(record)) - 1);
  double r = std::strtod(fmt::format("{:.1e}", record - step).c_str(), nullptr);
  if (r >= record) r = std::strtod(fmt::format("{:.1e}", record - step / 10).c_str(), nullptr);
  return r;
}

BudgetFile read_budget_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError("cannot read budget file " + printable(path, 160));
  std::ostringstream text;
  text << in.rdbuf();
  return budget_file_from_json(text.str(), path);
}

BudgetFile budget_file_from_json(std::string_view text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw FileError(fmt::format("{}: not JSON (at byte {})", printable(path, 160), e.byte));
  } catch (const json::exception&) {  // a number beyond double's range, found while parsing
    throw FileError(printable(path, 160) + ": not JSON (a number out of range)");
  }
  const Place top{path, ""};
  if (!j.is_object()) top.fail("the budget file must be a JSON object, not " + type_of(j));
  BudgetFile f;
  if (const json* v = member(j, "version")) {
    if (whole(*v, "version", top, 1) != 1)
      top.fail(fmt::format("\"version\" {} is not one peverify reads (1)", shown(*v)));
  } else {
    f.completed = true;
  }
  if (const json* grid = member(j, "grid")) {
    const Place at{path, "grid"};
    if (!grid->is_object()) at.fail("must be an object, not " + type_of(*grid));
    if (const json* v = member(*grid, "d_model"))
      f.d_model = static_cast<int>(whole(*v, "d_model", at, 2, kMaxDModel));
    if (const json* v = member(*grid, "base")) f.base = number(*v, "base", at);
    if (const json* bands = member(*grid, "bands")) {
      if (!bands->is_array()) at.fail("\"bands\" must be a list of [first, last] positions");
      for (const json& b : *bands) {
        if (!b.is_array() || b.size() != 2)
          at.fail("each of \"bands\" must be [first, last], not " + shown(b));
        const GateBand band{static_cast<uint64_t>(whole(b[0], "bands", at, 0)),
                            static_cast<uint64_t>(whole(b[1], "bands", at, 0))};
        if (band.last < band.first) at.fail("band " + band.name() + " is empty");
        f.bands.push_back(band);
      }
    } else {
      f.bands = default_bands();
    }
  } else {
    f.bands = default_bands();
    f.completed = true;
  }
  if (auto err = validate(grid_spec(f.d_model, f.base))) Place{path, "grid"}.fail(*err);
  const json* subjects = member(j, "subjects");
  if (!subjects) top.fail("\"subjects\" is missing: list the registry entries or tables to gate");
  if (!subjects->is_array()) top.fail("\"subjects\" must be a list, not " + type_of(*subjects));
  for (size_t i = 0; i < subjects->size(); ++i)
    f.subjects.push_back(read_subject((*subjects)[i], f, path, i));
  return f;
}

nlohmann::json to_json(const BudgetFile& f) {
  json j;
  j["version"] = 1;
  j["about"] =
      "peverify check budgets: the recorded error of each implementation per position band "
      "(measured against the exact value; rounded up to two significant digits). max_abs and "
      "max_ulp are kept only below what a table of zeros scores (the attention factor, and 2^p "
      "of the output); where one is not, max_budget_ratio (the largest |error| / budget of the "
      "claim) is kept instead. `peverify check --budgets FILE` fails when a measurement exceeds "
      "its record; `--update` rewrites the records.";
  json bands = json::array();
  for (const GateBand& b : f.bands) bands.push_back({b.first, b.last});
  // The grid's d_model and base are written only where a subject takes them: a registry entry,
  // or a table declaring neither (a rotary cache has its model's).
  bool grid_d = false, grid_base = false;
  for (const GateSubject& g : f.subjects) {
    const bool own_base = g.base || !g.model_config.empty();
    grid_d = grid_d || !g.impl.empty();
    grid_base = grid_base || !g.impl.empty() || !own_base;
  }
  j["grid"] = {{"bands", bands}};
  if (grid_d) j["grid"]["d_model"] = f.d_model;
  if (grid_base) j["grid"]["base"] = f.base;
  j["subjects"] = json::array();
  for (const GateSubject& g : f.subjects) {
    json s;
    if (!g.impl.empty()) {
      s["impl"] = g.impl;
    } else {
      s["table"] = g.table;
      if (g.d_model) s["d_model"] = *g.d_model;
      if (g.base) s["base"] = *g.base;
      if (!g.model_config.empty()) s["model_config"] = g.model_config;
      if (!g.layer_type.empty()) s["layer_type"] = g.layer_type;
      if (g.rope_scaling) s["rope_scaling"] = *g.rope_scaling;
      if (!g.positions.empty())
        s["positions"] = g.positions;
      else
        s["start"] = g.spec.start;
      s["layout"] = name_of(g.spec.layout);
      s["schedule"] = name_of(g.spec.schedule);
      if (!g.dtype.empty()) s["dtype"] = g.dtype;
      if (!g.tensor.empty()) s["tensor"] = g.tensor;
    }
    json budgets = json::object();
    for (const auto& [band, b] : g.records) budgets[band] = record_json(b);
    s["budgets"] = budgets;
    j["subjects"].push_back(s);
  }
  return j;
}

}  // namespace pev::gate
