// The sinusoidal tables' verdicts for people (text) and programs (JSON), in verify's words.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "peverify/verify/sinusoids/sinusoid_verify.h"

namespace pev::verify::sinusoids {
namespace {

// What a finding's `exact` holds, by the property that made it: the other copy (copies), the
// limit a value is held to (bounded), else the exact value.
const char* expected_label(const std::string& property) {
  return property == "copies" ? "copy" : property == "bounded" ? "limit" : "exact";
}

std::string where(const SinusoidFinding& f) {
  if (f.positions.empty()) return fmt::format("head {}", f.row);  // ALiBi's slopes
  if (f.head >= 0)
    return fmt::format("token {} head {} at ({:.9g}) dim {}", f.row, f.head,
                       fmt::join(f.positions, ", "), f.column);
  return fmt::format("row {} at {} column {}", f.row,
                     f.positions.size() == 1
                         ? fmt::format("{:.9g}", f.positions[0])
                         : fmt::format("({:.9g})", fmt::join(f.positions, ", ")),
                     f.column);
}

nlohmann::json finding_json(const SinusoidFinding& f) {
  const auto number = [](double x) {
    return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
  };
  nlohmann::json j = {
      {"row", f.row},         {"column", f.column},       {"positions", f.positions},
      {"got", number(f.got)}, {"exact", number(f.exact)}, {"abs_error", number(f.error)},
      {"allowed", f.allowed}, {"ulp", number(f.ulp)},     {"what", f.what}};
  if (f.head >= 0) j["head"] = f.head;
  return j;
}

}  // namespace

nlohmann::json to_json(const SinusoidVerdict& v) {
  nlohmann::json j = {
      {"table", v.table},
      {"description", v.description},
      {"kind", v.kind},
      {"declared", v.declaration},
      {"positions", v.positions},
      {"dtype", name_of(v.dtype)},
      {"budget", v.claim.describe()},
      {"claim", claim_json(v.claim)},
      {"holds", v.holds()},
      {"elements", v.elements},
      {"oracle_coverage", fmt::format("exhaustive: every one of {} elements", v.elements)},
      {"max_abs_error", v.max_abs_error},
      {"max_ulp", v.max_ulp},
      {"seconds", v.seconds}};
  j["properties"] = nlohmann::json::array();
  for (const SinusoidProperty& p : v.properties) {
    nlohmann::json worst = nlohmann::json::array();
    for (const SinusoidFinding& f : p.worst) worst.push_back(finding_json(f));
    j["properties"].push_back({{"property", p.property},
                               {"holds", p.holds},
                               {"judged", p.judged},
                               {"failed", p.failed},
                               {"summary", p.note},
                               {"worst", worst}});
  }
  if (v.diagnosis) j["diagnosis"] = to_json(*v.diagnosis);
  return j;
}

std::string to_text(const SinusoidVerdict& v) {
  std::string out =
      fmt::format("{}: {}, {} declared as {}; {}; budget {}\n", v.table, v.description, v.kind,
                  v.declaration, v.positions, v.claim.describe());
  for (const SinusoidProperty& p : v.properties)
    out += fmt::format("  {:<10} {:<5} {}\n", p.property, p.holds ? "holds" : "FAILS", p.note);
  out += fmt::format("  oracle coverage: exhaustive: every one of {} elements\n", v.elements);
  bool heading = false;
  for (const SinusoidProperty& p : v.properties) {
    if (p.holds) continue;
    for (const SinusoidFinding& f : p.worst) {
      if (!heading) out += "worst elements:\n", heading = true;
      out += std::isfinite(f.got)
                 ? fmt::format(
                       "  {}: got {:.9g} ({:a}), {} {:.9g}, abs error {:.3g} ({:.3g} ulp); "
                       "{} allows {:.3g} ({})\n",
                       where(f), f.got, f.got, expected_label(p.property), f.exact, f.error, f.ulp,
                       p.property, f.allowed, f.what)
                 : fmt::format("  {}: got {}, {} {:.9g}; {} ({})\n", where(f), f.got,
                               expected_label(p.property), f.exact, p.property, f.what);
    }
  }
  if (v.diagnosis) out += to_text(*v.diagnosis) + "\n";
  int failing = 0;
  for (const SinusoidProperty& p : v.properties) failing += !p.holds;
  out += failing
             ? fmt::format("verdict: FAIL ({} of {} properties)\n", failing, v.properties.size())
             : std::string("verdict: PASS\n");
  return out;
}

}  // namespace pev::verify::sinusoids
