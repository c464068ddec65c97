#include "peverify/properties/gtest/register_suite.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>

namespace pev::properties {
namespace {

// A figure as it must be recorded: every digit a double needs.
std::string exact(double x) { return fmt::format("{:.17g}", x); }

void expect(const PropertyVerdict& v, const Expectation& e) {
  if (e.holds) {
    EXPECT_TRUE(v.holds) << describe(v);
  } else {
    EXPECT_FALSE(v.holds) << "expected to fail (" << e.reason << ") but it holds: " << describe(v);
  }
  if (!e.figure.empty()) {
    const auto it = v.figures.find(e.figure);
    if (it == v.figures.end()) {
      ADD_FAILURE() << v.property << " has no figure " << e.figure
                    << " to assert the recorded cause (" << e.reason << "): " << describe(v);
    } else {
      const double tol = e.relative ? e.tolerance * std::fabs(e.value) : e.tolerance;
      EXPECT_LE(std::fabs(it->second - e.value), tol)
          << v.property << "'s " << e.figure << " is " << exact(it->second) << ", recorded "
          << exact(e.value) << (e.relative ? " within a relative " : " within ") << e.tolerance
          << " (" << e.reason << "): the failure changed its cause. " << describe(v);
    }
  }
  testing::Test::RecordProperty("verdict", describe(v));
  fmt::print("{}\n", describe(v));
}

// The shared state of one suite: the implementation, made once per test program.
struct SuiteState {
  Factory make;
  Expectations expected;
  std::unique_ptr<UnderTest> ut;
  const UnderTest& get() {
    if (!ut) ut = make();
    return *ut;
  }
  Expectation expectation(const std::string& property) const {
    auto it = expected.find(property);
    return it == expected.end() ? Expectation{} : it->second;
  }
};

class PropertyTest : public testing::Test {
 public:
  PropertyTest(std::shared_ptr<SuiteState> state, const SuiteProperty& property)
      : state_(std::move(state)), property_(property) {}
  void TestBody() override {
    const std::optional<PropertyVerdict> v = property_.run(state_->get());
    if (!v) GTEST_SKIP() << "no small grid this implementation can produce";
    const Expectation e = state_->expectation(property_.expectation);
    expect(*v, e);
  }

 private:
  std::shared_ptr<SuiteState> state_;
  const SuiteProperty& property_;
};

}  // namespace

std::string test_name_of(const std::string& name) {
  std::string n = name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

void register_suite(const std::string& suite_name, Factory make, Expectations expected) {
  fix_rapidcheck_seed();
  auto state = std::make_shared<SuiteState>();
  state->make = std::move(make);
  state->expected = std::move(expected);
  const std::string suite = test_name_of(suite_name);
  for (const SuiteProperty& p : suite_properties())
    testing::RegisterTest(suite.c_str(), p.test_name, nullptr, nullptr, __FILE__, __LINE__,
                          [state, &p]() -> testing::Test* { return new PropertyTest(state, p); });
}

}  // namespace pev::properties
