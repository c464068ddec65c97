#include "peverify/reports/render/findings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>

#include "peverify/reports/render/report_text.h"
#include "peverify/support/html_escape.h"

namespace pev::reports::render {
namespace {

using nlohmann::json;

bool measured(const json& e) {
  return e["available"].get<bool>() && e["accuracy"]["elements"].get<uint64_t>() > 0;
}

std::string code(const std::string& name) { return "`" + name + "`"; }

// The study's pick for one question, as report.json records it (the rule of
// reports/study/recommend.h, applied when the study ran): the entry's name, or empty.
std::string recorded_pick(const json& r, const json& model, const std::string& dtype,
                          uint64_t context, const std::string& target) {
  for (const json& x : r["recommendations"])
    if (x["model"] == model && x["dtype"] == dtype && x["context"] == context &&
        x["target"] == target)
      return x["implementation"].is_null() ? "" : x["implementation"].get<std::string>();
  return "";
}

// "a" or "a-b" for a range of positions or constants.
template <class T>
std::string range_text(T lo, T hi, const char* format = "{}") {
  const std::string a = fmt::format(fmt::runtime(format), lo);
  const std::string b = fmt::format(fmt::runtime(format), hi);
  return a == b ? a : a + "-" + b;
}

// Per output type: the pick for faithful tables at the longest context studied, by the
// recommendation's rule (the study's, recorded), and how the fastest entry of that type compares.
std::optional<ReportFinding> best_for(const json& r, const std::string& dtype, uint64_t context) {
  const json* fastest = nullptr;
  for (const json& e : r["implementations"])
    if (e["output"] == dtype && measured(e) && !e["values_per_s"].is_null() &&
        (!fastest || e["values_per_s"].get<double>() > (*fastest)["values_per_s"].get<double>()))
      fastest = &e;
  if (!fastest) return std::nullopt;
  std::string text;
  const std::string pick = recorded_pick(r, nullptr, dtype, context, "faithful");
  const json* best = pick.empty() ? nullptr : entry_named(r, pick);
  if (best) {
    text = fmt::format(
        "{} is faithful (every element within one ulp of the exact value) at every position "
        "studied, up to {}, at {} ({} of the store roofline)",
        code(pick), (*best)["horizons"].value("faithful", 0), speed_text((*best)["values_per_s"]),
        figure_text((*best)["roofline_ratio"]));
    // What the rule let pass because it starts beyond the context.
    for (const json& v : (*best)["properties"])
      if (!v["holds"].get<bool>())
        text += fmt::format("; it fails {} from position {}", v["property"].get<std::string>(),
                            v["first_position"].get<uint64_t>());
  } else {
    text =
        fmt::format("no {} entry available here is faithful up to position {}", dtype, context - 1);
  }
  if (fastest != best)
    text += fmt::format("; the fastest {} entry, {} ({}), {} and {}", dtype,
                        code((*fastest)["name"].get<std::string>()),
                        speed_text((*fastest)["values_per_s"]),
                        horizon_phrase((*fastest)["horizons"], "1e-4", dtype),
                        horizon_phrase((*fastest)["horizons"], "1e-2", dtype));
  return ReportFinding{dtype, text + "."};
}

// Where the float32 computations everyone writes (pow, logspace) stop meeting 1e-4 and 1e-2.
std::optional<ReportFinding> growth_finding(const json& r) {
  std::vector<const json*> usual;
  for (const json& e : r["implementations"])
    // TF32's angles (a GPU's reduced-precision GEMM) are not a float32 computation.
    if (measured(e) && e["compute"] == "f32" && e["output"] == "float32" &&
        (e["strategy"] == "pow" || e["strategy"] == "logspace") && e["backend"] != "torch-tf32")
      usual.push_back(&e);
  if (usual.empty()) return std::nullopt;
  uint64_t lo4 = UINT64_MAX, hi4 = 0, lo2 = UINT64_MAX, hi2 = 0;
  double c_lo = INFINITY, c_hi = 0;
  for (const json* e : usual) {
    const json& h = (*e)["horizons"];
    lo4 = std::min(lo4, h.value("1e-4", uint64_t{0}));
    hi4 = std::max(hi4, h.value("1e-4", uint64_t{0}));
    lo2 = std::min(lo2, h.value("1e-2", uint64_t{0}));
    hi2 = std::max(hi2, h.value("1e-2", uint64_t{0}));
    if (!(*e)["fitted_c"].is_null()) {
      c_lo = std::min(c_lo, (*e)["fitted_c"].get<double>());
      c_hi = std::max(c_hi, (*e)["fitted_c"].get<double>());
    }
  }
  std::string text = fmt::format(
      "The usual float32 computations (pow and logspace on every backend, {} entries) meet 1e-4 "
      "only up to position {} and 1e-2 up to {}: their error grows like pos x 2^-24, the "
      "rounding of the angle (fitted C {} for the model's 32).",
      usual.size(), range_text(lo4, hi4), range_text(lo2, hi2), range_text(c_lo, c_hi, "{:.2g}"));
  for (const json& e : r["implementations"])
    if (measured(e) && e["strategy"] == "precise" && e["output"] == "float32")
      text += fmt::format(" {} stays within one ulp up to {}.", code(e["name"].get<std::string>()),
                          e["horizons"].value("faithful", 0));
  return ReportFinding{"error growth", text};
}

// One finding per property that some entry breaks, naming the entries and where it starts;
// properties in the order the report lists them, whichever the study checked.
std::vector<ReportFinding> property_findings(const json& r) {
  std::map<std::string, std::vector<std::string>> failing;
  std::vector<std::string> order;
  for (const json& e : r["implementations"]) {
    if (!measured(e)) continue;
    for (const json& v : e["properties"]) {
      const std::string property = v["property"].get<std::string>();
      if (std::find(order.begin(), order.end(), property) == order.end()) order.push_back(property);
      if (v["holds"].get<bool>()) continue;
      std::string where = code(e["name"].get<std::string>());
      // The recommendation rules an entry out of any context its failure starts within, and out
      // of every context when the position is unknown (reports/recommend.h).
      where += v.contains("first_position") && !v["first_position"].is_null()
                   ? fmt::format(" (from position {})", v["first_position"].get<uint64_t>())
                   : std::string(" (at no known position, so never recommended)");
      failing[property].push_back(where);
    }
  }
  std::vector<ReportFinding> out;
  for (const std::string& p : order) {
    const auto it = failing.find(p);
    if (it == failing.end()) continue;
    const std::vector<std::string>& names = it->second;
    const size_t shown = std::min<size_t>(names.size(), 4);
    std::string list = fmt::format("{}", fmt::join(names.begin(), names.begin() + shown, ", "));
    if (names.size() > shown) list += fmt::format(" and {} more", names.size() - shown);
    out.push_back({p, fmt::format("{} fails for {} {}: {}.", p, names.size(),
                                  names.size() == 1 ? "entry" : "entries", list)});
  }
  return out;
}

// Each rotary model: Hugging Face's float32 and bfloat16 caches' verdicts (the framework entries,
// core/frameworks), and the pick.
std::vector<ReportFinding> model_findings(const json& r) {
  std::vector<ReportFinding> out;
  if (!r.contains("models")) return out;
  const json framework = r["study"].value("framework_entries", json::object());
  const uint64_t positions = r["study"].value("rotary_positions", uint64_t{0});
  for (const json& m : r["models"]) {
    const std::string name = m["name"].get<std::string>();
    std::vector<std::string> parts;
    for (const std::string dtype : {"float32", "bfloat16"}) {
      if (!framework.contains(dtype)) continue;
      const std::string entry = framework[dtype].get<std::string>();
      const json* e = entry_named(r, entry);
      const json* built = nullptr;
      if (e)
        for (const json& x : (*e)["models"])
          if (x["model"] == name) built = &x;
      if (!built) {
        parts.push_back(fmt::format("{} ({}) did not build it here", dtype, code(entry)));
        continue;
      }
      const uint64_t over = (*built)["over_claim"].get<uint64_t>();
      const bool every_row = built->value("every_row", false);
      parts.push_back(fmt::format("Hugging Face's {} code ({}, {}): max abs error {}, {}", dtype,
                                  code(entry),
                                  every_row ? fmt::format("every one of {} positions", positions)
                                            : std::string("sampled positions"),
                                  figure_text((*built)["max_abs"]),
                                  over ? fmt::format("{} of {} elements outside its claim", over,
                                                     (*built)["elements"].get<uint64_t>())
                                       : std::string("every element within its claim")));
    }
    const std::string pick = recorded_pick(r, name, "bfloat16", positions, "faithful");
    if (!pick.empty()) parts.push_back(fmt::format("faithful bfloat16: {}", code(pick)));
    std::string text = fmt::format("{}, {} positions: ", m["recipe"].get<std::string>(), positions);
    for (size_t i = 0; i < parts.size(); ++i) text += (i ? "; " : "") + parts[i];
    out.push_back({name, text + "."});
  }
  return out;
}

}  // namespace

std::vector<ReportFinding> findings(const json& r) {
  std::vector<ReportFinding> out;
  for (const std::string dtype : {"float32", "float16", "bfloat16"})
    if (auto f = best_for(r, dtype, 131072)) out.push_back(*f);
  if (auto f = growth_finding(r)) out.push_back(*f);
  for (ReportFinding& f : property_findings(r)) out.push_back(std::move(f));
  for (ReportFinding& f : model_findings(r)) out.push_back(std::move(f));
  return out;
}

std::string inline_html(const std::string& text) {
  std::string out;
  bool in_code = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '`') {
      const std::string part = html_escape(text.substr(start, i - start));
      out += in_code ? "<code>" + part + "</code>" : part;
      if (i < text.size()) in_code = !in_code;
      start = i + 1;
    }
  return out;
}

}  // namespace pev::reports::render
