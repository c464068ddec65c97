// Known, honest property failures of registry entries, as data (crosscheck/expectations.tsv):
// reviewed like code, and asserted both ways by the suite, each failure with its cause.
#pragma once

#include <string>
#include <vector>

#include "peverify/properties/suite.h"

namespace pev::crosscheck {

// One line of expectations.tsv, tab-separated:
//   pattern  property  holds|fails  figure  value  tolerance  reason
// `figure` names the verdict's figure that records the cause (first_duplicate_position,
// fitted_c, max_abs_value, first_violation_position, ...), or "-" for none; `tolerance` is
// absolute ("0", "2") or relative to the value ("5%"). A failing rule must record its cause.
struct ExpectationRule {
  std::string pattern;   // glob over entry names (fnmatch, '*' crosses '/')
  std::string property;  // bounded, unique, shift, growth, oracle
  properties::Expectation expectation;
};

// Reads the rules; throws std::runtime_error with file:line and what is wrong on a bad line.
std::vector<ExpectationRule> read_expectation_rules(const std::string& path);

// The expectations for one entry: for each property, the first rule that matches wins.
properties::Expectations expectations_for(const std::string& entry,
                                          const std::vector<ExpectationRule>& rules);

}  // namespace pev::crosscheck
