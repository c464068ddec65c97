// Known, honest property failures of registry entries, as data (crosscheck/expectations.tsv):
// reviewed like code, and asserted both ways by the suite.
#pragma once

#include <string>
#include <vector>

#include "properties/suite.h"

namespace pev::crosscheck {

struct ExpectationRule {
  std::string pattern;   // glob over entry names (fnmatch, '*' crosses '/')
  std::string property;  // bounded, unique, shift, growth, oracle
  bool holds;
  std::string reason;
};

// Reads the rules; throws std::runtime_error with file:line on a malformed line.
std::vector<ExpectationRule> read_expectation_rules(const std::string& path);

// The expectations for one entry: for each property, the first rule that matches wins.
properties::Expectations expectations_for(const std::string& entry,
                                          const std::vector<ExpectationRule>& rules);

}  // namespace pev::crosscheck
