#include "crosscheck/expectations.h"

#include <fnmatch.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pev::crosscheck {

std::vector<ExpectationRule> read_expectation_rules(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<ExpectationRule> rules;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    ExpectationRule r;
    std::string verdict;
    if (!std::getline(fields, r.pattern, '\t') || !std::getline(fields, r.property, '\t') ||
        !std::getline(fields, verdict, '\t') || !std::getline(fields, r.reason) ||
        (verdict != "holds" && verdict != "fails"))
      throw std::runtime_error(path + ":" + std::to_string(n) +
                               ": expected pattern<TAB>property<TAB>holds|fails<TAB>reason");
    r.holds = verdict == "holds";
    rules.push_back(r);
  }
  return rules;
}

properties::Expectations expectations_for(const std::string& entry,
                                          const std::vector<ExpectationRule>& rules) {
  properties::Expectations e;
  for (const ExpectationRule& r : rules)
    if (!e.count(r.property) && fnmatch(r.pattern.c_str(), entry.c_str(), 0) == 0)
      e[r.property] = {r.holds, r.reason};
  return e;
}

}  // namespace pev::crosscheck
