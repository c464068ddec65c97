// The property suite as GoogleTest tests (RapidCheck's extras/gtest is the model): link
// peverify::properties_gtest, which the plain peverify::properties does not need. Each property of
// properties/suite.h becomes one test of a suite named after the implementation, asserted against
// an expectation:
//
//   #include "properties/gtest/register_suite.h"
//   int main(int argc, char** argv) {
//     pev::properties::register_suite("MyKernel", [] { return pev::properties::callable(...); });
//     testing::InitGoogleTest(&argc, argv);
//     return RUN_ALL_TESTS();
//   }
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "peverify/properties/suite.h"
#include "peverify/properties/under_test.h"

namespace pev::properties {

using Factory = std::function<std::unique_ptr<UnderTest>()>;

// What a property is expected to do: hold, or fail for a recorded reason. The suite asserts the
// expectation both ways, so a good implementation turning bad and a known-bad one silently
// changing are both noticed.
struct Expectation {
  bool holds = true;
  std::string reason;
  // A failure's cause, asserted too: the verdict's figure (first_duplicate_position, fitted_c,
  // max_abs_value, ...) must be within `tolerance` of `value` (relative to it when `relative`),
  // so that a failure that changes its cause does not pass for the recorded one.
  std::string figure;  // empty: the verdict alone is asserted
  double value = 0;
  double tolerance = 0;
  bool relative = false;
};
using Expectations = std::map<std::string, Expectation>;  // property name -> expectation

// The tests are suite_properties()' test names: Bounded, Unique, ShiftIdentities, Growth,
// OracleAgreementExhaustive, OracleAgreementSampled. The property names of Expectations are the
// verdicts' names: bounded, unique, shift, growth, oracle, but oracle_sampled for the sampled
// oracle (a RapidCheck failure's figures are its smallest counterexample's). The implementation is
// made once, by the first test that runs.
void register_suite(const std::string& suite_name, Factory make, Expectations expected = {});

// "cpu/logspace/f32>bf16/sleef-u10" -> "cpu_logspace_f32_bf16_sleef_u10": a valid test name.
std::string test_name_of(const std::string& name);

}  // namespace pev::properties
