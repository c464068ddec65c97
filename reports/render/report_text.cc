#include "peverify/reports/render/report_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "peverify/encoding/targets.h"

namespace pev::reports::render {

std::string figure_text(const nlohmann::json& x) {
  if (x.is_null()) return "inf";
  return fmt::format("{:.3g}", x.get<double>());
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

// Whether no table of `dtype` (a report's type name) can meet `target`.
bool beyond_format(const std::string& dtype, const std::string& target) {
  const std::optional<Dtype> t = parse_dtype(dtype);
  return t && beyond_output_format(*t, target);
}

}  // namespace

std::string horizon_text(const nlohmann::json& horizons, const std::string& target,
                         const std::string& dtype) {
  if (horizons.contains(target)) {
    const uint64_t h = horizons[target].get<uint64_t>();
    if (h > 0) return std::to_string(h);
  }
  if (beyond_format(dtype, target))
    return fmt::format("never: the {} output rounding alone exceeds {}", dtype, target);
  return "never beyond position 0";
}

std::string horizon_phrase(const nlohmann::json& horizons, const std::string& target,
                           const std::string& dtype) {
  if (horizons.contains(target) && horizons[target].get<uint64_t>() > 0)
    return fmt::format("meets {} up to position {}", target, horizons[target].get<uint64_t>());
  if (beyond_format(dtype, target))
    return fmt::format("never meets {} (the {} output rounding alone exceeds it)", target, dtype);
  return fmt::format("never meets {} beyond position 0", target);
}

std::string short_entry_name(const std::string& name) {
  const size_t slash = name.find('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

std::string speed_text(const nlohmann::json& values_per_s) {
  if (values_per_s.is_null()) return "-";
  const double v = values_per_s.get<double>();
  if (v >= 1e9) return fmt::format("{:.3g} G/s", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.3g} M/s", v / 1e6);
  return fmt::format("{:.3g}/s", v);
}

std::string verdict_cell(const nlohmann::json& entry, const std::string& property) {
  for (const auto& v : entry["properties"])
    if (v["property"] == property) return v["holds"].get<bool>() ? "holds" : "FAILS";
  return "-";
}

const nlohmann::json* entry_named(const nlohmann::json& report, const std::string& name) {
  for (const nlohmann::json& e : report["implementations"])
    if (e["name"] == name) return &e;
  return nullptr;
}

std::string study_sentence(const nlohmann::json& r) {
  const nlohmann::json& s = r["study"];
  const auto list = [](const nlohmann::json& xs) {
    return fmt::format("{:g}", fmt::join(xs.get<std::vector<double>>(), ", "));
  };
  std::string text = fmt::format(
      "Every error is measured against the exact value (MPFR, rounded once, correctly). Study: "
      "d_model {}; base {}; every position below {} (while rows x d <= {}), then {} sampled "
      "blocks up to position {}",
      list(s["d_models"]), list(s["bases"]), s["exhaustive_positions"].get<uint64_t>(),
      s["exhaustive_values"].get<uint64_t>(), s["sampled_blocks"].get<int>(),
      s["max_position"].get<uint64_t>());
  if (s.contains("rotary_models") && !s["rotary_models"].empty())
    text += fmt::format("; the rotary caches of {} models to {} positions",
                        s["rotary_models"].size(), s["rotary_positions"].get<uint64_t>());
  text += ".";
  if (r.contains("machine"))
    text += fmt::format(" Machine: {}, {} threads.", r["machine"]["cpu"].get<std::string>(),
                        r["machine"]["threads"].get<int>());
  text += fmt::format(" Made by `peverify report` in {} s.", figure_text(r["seconds"]));
  return text;
}

}  // namespace pev::reports::render
