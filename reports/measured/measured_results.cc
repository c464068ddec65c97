#include "peverify/reports/measured/measured_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "peverify/core/cuda/modelled_bounds.h"
#include "peverify/reports/measured/measured_files.h"
#include "peverify/tables/atomic_file.h"

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
    c["above_model"] = bound >= 0 && c["measured_max_abs"].get<double>() > bound;
    out.push_back(c);
  }
  return out;
}

}  // namespace

void validate(const json& doc, const std::string& source) {
  if (!doc.is_object()) bad(source, "not a JSON object");
  require(doc, "format", json::value_t::string, source, "");
  if (doc["format"] != kFormat)
    bad(source, fmt::format("format {} is not {}", doc["format"].dump(), kFormat));
  require(doc, "device", json::value_t::object, source, "");
  require(doc["device"], "name", json::value_t::string, source, "device: ");
  require(doc["device"], "driver", json::value_t::string, source, "device: ");
  require(doc, "date", json::value_t::string, source, "");
  require(doc, "commit", json::value_t::string, source, "");
  require(doc, "roofline", json::value_t::object, source, "");
  require(doc["roofline"], "bytes_per_s", json::value_t::number_float, source, "roofline: ");
  require(doc, "entries", json::value_t::array, source, "");
  require(doc, "rotations", json::value_t::array, source, "");
  for (const json& e : doc["entries"]) {
    if (!e.is_object()) bad(source, "an entry is not an object");
    require(e, "name", json::value_t::string, source, "entry: ");
    const std::string where = "entry " + e["name"].get<std::string>() + ": ";
    require(e, "report", json::value_t::object, source, where);
    require(e, "model_checks", json::value_t::array, source, where);
    require(e, "speed", json::value_t::object, source, where);
    for (const json& c : e["model_checks"]) {
      require(c, "grid", json::value_t::string, source, where);
      require(c, "measured_max_abs", json::value_t::number_float, source, where);
      if (c["grid"] != "near" && c["grid"] != "far") bad(source, where + "grid is not near or far");
    }
    for (const char* key : {"accuracy", "bands", "properties", "fitted_c", "horizons"})
      if (!e["report"].contains(key)) bad(source, where + "report has no \"" + key + "\"");
  }
  for (const json& r : doc["rotations"]) {
    require(r, "name", json::value_t::string, source, "rotation: ");
    require(r, "seconds", json::value_t::object, source, "rotation: ");
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
            "{} on {}: measured max abs {:.4g} on the {} grid, above the "
            "host model's bound {:.4g}: the model is wrong",
            name, doc["device"]["name"].get<std::string>(), c["measured_max_abs"].get<double>(),
            c["grid"].get<std::string>(), c["model_max_abs_now"].get<double>()));
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
  // Bands are shown only where the measured study's bands are this report's.
  json bands_here;
  for (const json& i : report["implementations"])
    if (i["available"].get<bool>()) {
      bands_here = json::array();
      for (const json& b : i["bands"]) bands_here.push_back({b["first"], b["last"]});
      break;
    }
  for (json& i : report["implementations"]) {
    if (i["available"].get<bool>()) continue;
    const auto it = newest.find(i["name"].get<std::string>());
    if (it == newest.end()) continue;
    const json& doc = *it->second.first;
    const json& e = *it->second.second;
    const json& r = e["report"];
    for (const char* key : {"accuracy", "properties", "fitted_c", "horizons", "error_curve"})
      if (r.contains(key)) i[key] = r[key];
    json bands = json::array();
    for (const json& b : r["bands"]) bands.push_back({b["first"], b["last"]});
    if (bands == bands_here) i["bands"] = r["bands"];
    const json& speed = e["speed"];
    if (speed.contains("values_per_s")) {
      i["values_per_s"] = speed["values_per_s"]["median"];
      i["values_per_s_min"] = speed["values_per_s"]["min"];
      i["values_per_s_max"] = speed["values_per_s"]["max"];
    }
    i["roofline_ratio"] = speed.value("roofline_ratio", json());
    i["measured"] = {
        {"device", doc["device"]["name"]},
        {"driver", doc["device"]["driver"]},
        {"date", doc["date"]},
        {"commit", doc["commit"]},
        {"source", doc.value("source", "")},
        {"roofline", "the device's store roofline"},
        {"model_checks", model_checks_now(i["name"].get<std::string>(), e["model_checks"])}};
    i.erase("modelled");
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
