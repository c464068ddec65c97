#include "peverify/reports/measured/measured_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "peverify/core/cuda/modelled_bounds.h"
#include "peverify/reports/measured/measured_files.h"
#include "peverify/support/atomic_file.h"

namespace pev::reports::measured {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& source, const std::string& what) {
  throw FileError(source + ": not a measured-results file: " + what);
}

void require(const json& j, const char* key, json::value_t type, const std::string& source,
             const std::string& where) {
  const auto it = j.find(key);
  const bool number = type == json::value_t::number_float;
  if (it == j.end() || !(number ? it->is_number() : it->type() == type))
    bad(source, fmt::format("{}\"{}\" is missing or not {}", where, key,
                            number ? "a number" : json(type).type_name()));
}

// The bound the host model now records for a grid ("near": positions below 8192, "far": the 64
// ending at 2^20), or a negative number where it records none.
double model_bound(const std::string& entry, const std::string& grid) {
  const core::cuda::RecordedModel* r = core::cuda::recorded_model(entry);
  if (!r) return -1;
  return grid == "near" ? r->near_abs : r->far_abs;
}

// The measurement's model checks, each beside the model bound recorded now.
json model_checks_now(const std::string& entry, const json& checks) {
  json out = json::array();
  for (json c : checks) {
    const double bound = model_bound(entry, c["grid"].get<std::string>());
    c["model_max_abs_now"] = bound < 0 ? json() : json(bound);
    // null: an error that is not a finite number (a NaN or an infinity on the device). Above the
    // model: above its exact bound when measured, or above the bound recorded now (a model
    // changed since), which is the model's to within its recording's precision.
    const json& measured = c["measured_max_abs"];
    const double m =
        measured.is_number() ? measured.get<double>() : std::numeric_limits<double>::infinity();
    const double then = c.contains("model_max_abs") && c["model_max_abs"].is_number()
                            ? c["model_max_abs"].get<double>()
                            : std::numeric_limits<double>::infinity();
    c["above_model"] =
        m > then || (bound >= 0 && m > bound * (1 + core::cuda::kRecordedRelativeTolerance));
    out.push_back(c);
  }
  return out;
}

// A bound with 4 digits, or "none" where none was recorded.
std::string number_text(const json& x) {
  return x.is_number() ? fmt::format("{:.4g}", x.get<double>()) : std::string("none");
}

// Whether two report.json "study" objects describe the same study (the filter, the benchmark and
// the threads aside: they choose what runs, not what a figure means).
bool same_study_config(const json& a, const json& b) {
  if (!a.is_object() || !b.is_object()) return false;
  for (const char* key :
       {"d_models", "bases", "exhaustive_positions", "exhaustive_values", "max_position",
        "sampled_blocks", "rotary_models", "rotary_positions", "framework_entries", "ulp_floor"})
    if (a.value(key, json()) != b.value(key, json())) return false;
  return true;
}

}  // namespace

void validate(const json& doc, const std::string& source) {
  if (!doc.is_object()) bad(source, "not a JSON object");
  const auto string = [&](const json& j, const char* key, const std::string& where) {
    require(j, key, json::value_t::string, source, where);
  };
  const auto number = [&](const json& j, const char* key, const std::string& where) {
    require(j, key, json::value_t::number_float, source, where);
  };
  const auto object = [&](const json& j, const char* key, const std::string& where) {
    require(j, key, json::value_t::object, source, where);
  };
  // A timing's figures: seconds and values/s as median, min and max, bytes/s, the roofline ratio.
  const auto speed = [&](const json& j, const std::string& where) {
    for (const char* key : {"seconds", "values_per_s", "bytes_per_s"}) {
      object(j, key, where);
      for (const char* figure : {"median", "min", "max"})
        number(j[key], figure, where + key + ": ");
    }
    number(j, "roofline_ratio", where);
  };
  string(doc, "format", "");
  if (doc["format"] != kFormat)
    bad(source, fmt::format("format {} is not {}", doc["format"].dump(), kFormat));
  object(doc, "device", "");
  for (const char* key : {"name", "driver"}) string(doc["device"], key, "device: ");
  string(doc, "date", "");
  string(doc, "commit", "");
  object(doc, "study", "");
  object(doc, "roofline", "");
  for (const char* key :
       {"bytes", "repetitions", "memset_bytes_per_s", "store_kernel_bytes_per_s", "bytes_per_s"})
    number(doc["roofline"], key, "roofline: ");
  require(doc, "entries", json::value_t::array, source, "");
  require(doc, "rotations", json::value_t::array, source, "");
  for (const json& e : doc["entries"]) {
    if (!e.is_object()) bad(source, "an entry is not an object");
    string(e, "name", "entry: ");
    const std::string where = "entry " + e["name"].get<std::string>() + ": ";
    object(e, "report", where);
    require(e, "model_checks", json::value_t::array, source, where);
    object(e, "speed", where);
    speed(e["speed"], where + "speed: ");
    for (const json& c : e["model_checks"]) {
      string(c, "grid", where);
      number(c, "rows", where);
      // null where the device's error was not a finite number
      if (!c.contains("measured_max_abs") ||
          !(c["measured_max_abs"].is_number() || c["measured_max_abs"].is_null()))
        bad(source, where + "\"measured_max_abs\" is missing or not a number");
      if (c["grid"] != "near" && c["grid"] != "far") bad(source, where + "grid is not near or far");
    }
    for (const char* key : {"accuracy", "bands", "properties", "fitted_c", "horizons"})
      if (!e["report"].contains(key)) bad(source, where + "report has no \"" + key + "\"");
  }
  for (const json& r : doc["rotations"]) {
    string(r, "name", "rotation: ");
    const std::string where = "rotation " + r["name"].get<std::string>() + ": ";
    for (const char* key : {"tokens", "heads", "head_dim"}) number(r, key, where);
    speed(r, where);
  }
}

const std::vector<json>& compiled_in() {
  static const std::vector<json> docs = [] {
    std::vector<json> out;
    for (const auto& [path, text] : measured_files()) {
      json doc;
      try {
        doc = json::parse(text);
      } catch (const json::exception& e) {
        bad(path, e.what());
      }
      validate(doc, path);
      doc["source"] = path;
      out.push_back(std::move(doc));
    }
    return out;
  }();
  return docs;
}

std::vector<std::string> above_model(const json& doc) {
  std::vector<std::string> out;
  for (const json& e : doc["entries"]) {
    const std::string name = e["name"].get<std::string>();
    for (const json& c : model_checks_now(name, e["model_checks"]))
      if (c["above_model"].get<bool>())
        out.push_back(fmt::format(
            "{} on {}: measured max abs {} on the {} grid, above the host model's bound ({} when "
            "measured, {} recorded now): the model is wrong",
            name, doc["device"]["name"].get<std::string>(),
            c["measured_max_abs"].is_number() ? number_text(c["measured_max_abs"])
                                              : std::string("not a finite number"),
            c["grid"].get<std::string>(), number_text(c.value("model_max_abs", json())),
            number_text(c["model_max_abs_now"])));
  }
  return out;
}

void attach(json& report, const std::vector<json>& measurements) {
  // The newest measurement of each entry (ISO 8601 dates compare as text).
  std::map<std::string, std::pair<const json*, const json*>> newest;  // entry -> (doc, entry)
  for (const json& doc : measurements)
    for (const json& e : doc["entries"]) {
      auto& slot = newest[e["name"].get<std::string>()];
      if (!slot.first || (*slot.first)["date"].get<std::string>() < doc["date"].get<std::string>())
        slot = {&doc, &e};
    }
  for (json& i : report["implementations"]) {
    if (i.value("available", true) || !i.contains("name")) continue;
    const auto it = newest.find(i["name"].get<std::string>());
    if (it == newest.end()) continue;
    const json& doc = *it->second.first;
    const json& e = *it->second.second;
    // The figures are shown only where the measured study is this report's (`peverify report
    // --config` may ask for other grids); the speed and the model checks always.
    const bool same_study = same_study_config(report.value("study", json()), doc["study"]);
    if (same_study) {
      const json& r = e["report"];
      for (const char* key :
           {"accuracy", "bands", "properties", "fitted_c", "horizons", "error_curve"})
        if (r.contains(key)) i[key] = r[key];
      const json& speed = e["speed"];
      i["values_per_s"] = speed["values_per_s"]["median"];
      i["values_per_s_min"] = speed["values_per_s"]["min"];
      i["values_per_s_max"] = speed["values_per_s"]["max"];
      i["roofline_ratio"] = speed["roofline_ratio"];
      i.erase("modelled");
    }
    i["measured"] = {
        {"device", doc["device"]["name"]},
        {"driver", doc["device"]["driver"]},
        {"date", doc["date"]},
        {"commit", doc["commit"]},
        {"source", doc.value("source", "")},
        {"same_study", same_study},
        {"model_checks", model_checks_now(i["name"].get<std::string>(), e["model_checks"])}};
  }
  json devices = json::array();
  for (const json& doc : measurements) {
    json d = {{"device", doc["device"]},      {"date", doc["date"]},
              {"commit", doc["commit"]},      {"source", doc.value("source", "")},
              {"roofline", doc["roofline"]},  {"tables", json::array()},
              {"rotations", doc["rotations"]}};
    if (doc.contains("command")) d["command"] = doc["command"];
    if (doc.contains("table_shape")) d["table_shape"] = doc["table_shape"];
    for (const json& e : doc["entries"])
      d["tables"].push_back({{"name", e["name"]}, {"speed", e["speed"]}});
    devices.push_back(d);
  }
  if (!devices.empty()) report["cuda_measured"] = devices;
}

}  // namespace pev::reports::measured
