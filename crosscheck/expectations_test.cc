// The expectations file's format: every failure records its cause; bad lines name what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "peverify/crosscheck/expectations_testutil.h"

namespace pev::crosscheck {
namespace {

std::vector<ExpectationRule> read(const std::string& text) {
  // One file per test: ctest runs the tests of this binary in parallel processes.
  const std::string path = ::testing::TempDir() + "/expectations_test_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".tsv";
  std::ofstream(path) << text;
  auto rules = read_expectation_rules(path);
  std::filesystem::remove(path);
  return rules;
}

void expect_refused(const std::string& text, const std::string& needle) {
  try {
    read(text);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(":1:"), std::string::npos) << e.what();
  }
}

TEST(Expectations, TheCommittedFileReadsAndEveryFailureRecordsItsCause) {
  const auto rules = read_expectation_rules("crosscheck/expectations.tsv");
  ASSERT_FALSE(rules.empty());
  for (const ExpectationRule& r : rules)
    if (!r.expectation.holds) {
      EXPECT_FALSE(r.expectation.figure.empty()) << r.pattern;
    }
}

TEST(Expectations, FiguresValuesAndTolerancesAbsoluteOrRelative) {
  const auto rules = read(
      "# comment\n"
      "cpu/a/*\tunique\tfails\tfirst_duplicate_position\t257\t0\tpositions in bfloat16\n"
      "cpu/b/*\tgrowth\tholds\tdirect_c\t2000\t10%\tsteps counted\n"
      "cpu/c/*\tbounded\tholds\t-\t-\t-\tfine\n");
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].expectation.figure, "first_duplicate_position");
  EXPECT_EQ(rules[0].expectation.value, 257);
  EXPECT_FALSE(rules[0].expectation.relative);
  EXPECT_TRUE(rules[1].expectation.relative);
  EXPECT_DOUBLE_EQ(rules[1].expectation.tolerance, 0.1);
  EXPECT_TRUE(rules[2].expectation.figure.empty());
  const auto e = expectations_for("cpu/a/x", rules);
  ASSERT_EQ(e.count("unique"), 1u);
  EXPECT_FALSE(e.at("unique").holds);
}

TEST(Expectations, BadLinesAreRefusedWithTheirLineAndWhy) {
  expect_refused("cpu/a\tunique\tfails\t-\t-\t-\tno cause\n", "must record its cause");
  expect_refused("cpu/a\tunique\tmaybe\tx\t1\t0\twhy\n", "neither holds nor fails");
  expect_refused("cpu/a\tunique\tfails\tx\tabc\t0\twhy\n", "value is not a number");
  expect_refused("cpu/a\tunique\tfails\tx\t1\t-2\twhy\n", "tolerance");
  expect_refused("cpu/a\tunique\tfails\twhy\n", "too few fields");
}

}  // namespace
}  // namespace pev::crosscheck
