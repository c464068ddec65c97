// The property suite as GoogleTest tests, for any implementation under test: registry entries,
// a user's kernel, a loaded table. Another project runs it in about ten lines:
//
//   #include "properties/suite.h"
//   void my_kernel(const pev::TableSpec& spec, uint64_t rows, double* out);  // yours
//   int main(int argc, char** argv) {
//     pev::properties::register_suite("MyKernel", [] {
//       return pev::properties::callable("my-kernel", pev::Dtype::kFloat32,
//                                        pev::Claim::model(pev::Dtype::kFloat32), my_kernel);
//     });
//     testing::InitGoogleTest(&argc, argv);
//     return RUN_ALL_TESTS();
//   }
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

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

// The properties, as test names: Bounded, Unique, ShiftIdentities, Growth,
// OracleAgreementExhaustive, OracleAgreementSampled. The property names of Expectations are the
// verdicts' names: bounded, unique, shift, growth, oracle.
void register_suite(const std::string& suite_name, Factory make, Expectations expected = {});

// "cpu/logspace/f32>bf16/sleef-u10" -> "cpu_logspace_f32_bf16_sleef_u10": a valid test name.
std::string test_name_of(const std::string& name);

}  // namespace pev::properties
