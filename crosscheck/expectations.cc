#include "peverify/crosscheck/expectations.h"

#include <fnmatch.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pev::crosscheck {
namespace {

// A number of the file, whole: "257", "1.0006", "2e-3".
bool parse_number(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && std::isfinite(out);
}

}  // namespace

std::vector<ExpectationRule> read_expectation_rules(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<ExpectationRule> rules;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    const auto bad = [&](const std::string& what) {
      return std::runtime_error(path + ":" + std::to_string(n) + ": " + what +
                                " (expected pattern<TAB>property<TAB>holds|fails<TAB>figure<TAB>"
                                "value<TAB>tolerance<TAB>reason)");
    };
    std::istringstream fields(line);
    ExpectationRule r;
    properties::Expectation& e = r.expectation;
    std::string verdict, value, tolerance;
    if (!std::getline(fields, r.pattern, '\t') || !std::getline(fields, r.property, '\t') ||
        !std::getline(fields, verdict, '\t') || !std::getline(fields, e.figure, '\t') ||
        !std::getline(fields, value, '\t') || !std::getline(fields, tolerance, '\t') ||
        !std::getline(fields, e.reason) || e.reason.empty())
      throw bad("too few fields");
    if (verdict != "holds" && verdict != "fails")
      throw bad("the verdict is neither holds nor fails");
    e.holds = verdict == "holds";
    if (e.figure == "-") {
      if (!e.holds) throw bad("a failure must record its cause: a figure, its value, a tolerance");
      e.figure.clear();
      if (value != "-" || tolerance != "-") throw bad("no figure, so value and tolerance are -");
    } else {
      if (!parse_number(value, e.value)) throw bad("the value is not a number");
      e.relative = !tolerance.empty() && tolerance.back() == '%';
      if (e.relative) tolerance.pop_back();
      if (!parse_number(tolerance, e.tolerance) || e.tolerance < 0)
        throw bad("the tolerance is not a number >= 0 (or a percentage)");
      if (e.relative) e.tolerance /= 100;
    }
    rules.push_back(r);
  }
  return rules;
}

properties::Expectations expectations_for(const std::string& entry,
                                          const std::vector<ExpectationRule>& rules) {
  properties::Expectations e;
  for (const ExpectationRule& r : rules)
    if (!e.count(r.property) && fnmatch(r.pattern.c_str(), entry.c_str(), 0) == 0)
      e[r.property] = r.expectation;
  return e;
}

}  // namespace pev::crosscheck
