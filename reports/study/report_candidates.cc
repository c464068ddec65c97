// report.json read back into what the recommendation rule needs of each implementation, so that
// `peverify recommend` and the findings apply the report's rule to the report's data. Every field
// read is checked: a malformed or foreign file is one line naming the field, never a crash.
#include <fmt/format.h>

#include <cmath>

#include "peverify/reports/study/recommend.h"
#include "peverify/reports/study/report_json.h"
#include "peverify/support/atomic_file.h"

namespace pev::reports::study {
namespace {

using nlohmann::json;

// One object of the report, and where it is (for the error line).
class Fields {
 public:
  Fields(const json& object, const std::string& source, std::string where)
      : object_(object), source_(source), where_(std::move(where)) {
    if (!object_.is_object()) fail(where_, "must be an object");
  }

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw FileError(fmt::format("{}: {} {}", source_, where, what));
  }
  std::string path(const char* key) const { return where_ + "." + key; }
  bool has(const char* key) const { return object_.contains(key); }
  const json& at(const char* key) const {
    if (!has(key)) fail(path(key), "is missing");
    return object_[key];
  }
  Fields object(const char* key) const { return Fields(at(key), source_, path(key)); }

  std::string string(const char* key) const {
    const json& x = at(key);
    if (!x.is_string()) fail(path(key), "must be a string");
    return x.get<std::string>();
  }
  bool boolean(const char* key) const {
    const json& x = at(key);
    if (!x.is_boolean()) fail(path(key), "must be true or false");
    return x.get<bool>();
  }
  // A number, or null for an infinite or undefined figure (report.json's convention).
  double number_or_inf(const char* key) const {
    const json& x = at(key);
    if (x.is_null()) return INFINITY;
    if (!x.is_number()) fail(path(key), "must be a number or null");
    return x.get<double>();
  }
  // Absent or null: none.
  std::optional<double> optional_number(const char* key) const {
    if (!has(key) || object_[key].is_null()) return std::nullopt;
    return number_or_inf(key);
  }
  std::optional<uint64_t> optional_position(const char* key) const {
    if (!has(key) || object_[key].is_null()) return std::nullopt;
    if (!object_[key].is_number_unsigned()) fail(path(key), "must be a position (an integer >= 0)");
    return object_[key].get<uint64_t>();
  }
  std::map<std::string, uint64_t> horizons(const char* key) const {
    const json& x = at(key);
    if (!x.is_object()) fail(path(key), "must be an object of target -> position");
    std::map<std::string, uint64_t> out;
    for (const auto& [target, pos] : x.items()) {
      if (!pos.is_number_unsigned()) fail(path(key) + "." + target, "must be a position");
      out[target] = pos.get<uint64_t>();
    }
    return out;
  }
  const json& array(const char* key) const {
    const json& x = at(key);
    if (!x.is_array()) fail(path(key), "must be an array");
    return x;
  }
  const std::string& source() const { return source_; }

 private:
  const json& object_;
  const std::string& source_;
  std::string where_;
};

Candidate read_candidate(const Fields& f) {
  Candidate c;
  c.name = f.string("name");
  c.output = f.string("output");
  c.available = f.boolean("available");
  c.plain = {f.object("accuracy").number_or_inf("max_abs"), f.horizons("horizons")};
  if (const auto median = f.optional_number("values_per_s")) {
    // Reports written before the spread was kept have none: the median alone.
    const double min = f.optional_number("values_per_s_min").value_or(*median);
    const double max = f.optional_number("values_per_s_max").value_or(*median);
    if (!(min <= *median && *median <= max))
      f.fail(f.path("values_per_s"), "must lie within values_per_s_min .. values_per_s_max");
    c.values_per_s = Spread{*median, min, max};
  }
  c.roofline_ratio = f.optional_number("roofline_ratio");
  const json& properties = f.array("properties");
  for (size_t i = 0; i < properties.size(); ++i) {
    const Fields v(properties[i], f.source(), fmt::format("{}[{}]", f.path("properties"), i));
    if (!v.boolean("holds"))
      c.failures.emplace_back(v.string("property"), v.optional_position("first_position"));
  }
  if (f.has("models")) {
    const json& models = f.array("models");
    for (size_t i = 0; i < models.size(); ++i) {
      const Fields m(models[i], f.source(), fmt::format("{}[{}]", f.path("models"), i));
      c.models[m.string("model")] = {m.number_or_inf("max_abs"), m.horizons("horizons")};
    }
  }
  return c;
}

}  // namespace

std::vector<Candidate> candidates_from_report(const json& report, const std::string& source) {
  if (!report.is_object() || !report.contains("generator") ||
      report["generator"] != "peverify report")
    throw FileError(source + " is not a peverify report (no \"generator\": \"peverify report\")");
  const Fields top(report, source, "report");
  const json& version = top.at("schema_version");
  if (version != kReportSchemaVersion)
    throw FileError(fmt::format("{}: schema_version {}; this peverify reads {}", source,
                                version.dump(), kReportSchemaVersion));
  const json& implementations = top.array("implementations");
  std::vector<Candidate> out;
  for (size_t i = 0; i < implementations.size(); ++i)
    out.push_back(
        read_candidate(Fields(implementations[i], source, fmt::format("implementations[{}]", i))));
  return out;
}

}  // namespace pev::reports::study
