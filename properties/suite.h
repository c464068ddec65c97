// The property suite on one implementation, with no test framework (docs/mathematics.md §5): each
// property on the grids and RapidCheck cases the suite chooses for it, as verdicts. A kernel's own
// test runs it in a few lines:
//
//   #include "properties/peverify_properties.h"
//   void my_kernel(const pev::TableSpec& spec, uint64_t rows, double* out);  // yours
//   int main() {
//     const auto ut = pev::properties::callable("my-kernel", pev::Dtype::kFloat32,
//                                               pev::Claim::model(pev::Dtype::kFloat32),
//                                               my_kernel);
//     bool ok = true;
//     for (const auto& v : pev::properties::run_suite(*ut)) ok = ok && v.holds;
//     return ok ? 0 : 1;
//   }
//
// properties/gtest/register_suite.h registers the same as GoogleTest tests, with expectations.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "peverify/properties/checks.h"
#include "peverify/properties/under_test.h"

namespace pev::properties {

// One property of the suite: its test name, its verdict's name, and how it runs on an
// implementation (nullopt: nothing to run, e.g. no small grid the implementation can produce).
struct SuiteProperty {
  const char* test_name;  // Bounded, Unique, ShiftIdentities, Growth, OracleAgreement...
  const char* property;   // the verdict's: bounded, unique, shift, growth, oracle
  // The name its expected verdict is recorded under (crosscheck/expectations.tsv): the property's,
  // but "oracle_sampled" for the sampled oracle, whose cases are not the exhaustive check's.
  const char* expectation;
  std::optional<PropertyVerdict> (*run)(const UnderTest& ut);
};
const std::vector<SuiteProperty>& suite_properties();

// RapidCheck's cases are the same on every run unless RC_PARAMS asks for others ("seed=...",
// "max_success=..."): a CI gate must not flip on a lucky draw.
void fix_rapidcheck_seed();

// Every property of the suite on `ut`, in suite_properties()' order (the seed fixed as above).
std::vector<PropertyVerdict> run_suite(const UnderTest& ut);

// A verdict in words: the property, holds or FAILS, its summary, notes and worst elements.
std::string describe(const PropertyVerdict& v);

}  // namespace pev::properties
