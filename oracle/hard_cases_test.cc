// Hard cases for the oracle's precision ladder (oracle/testdata/hard_cases.tsv): elements whose
// rounding rung 0 cannot decide, by cancellation near a zero of sin or cos or by an exact value
// within a hair of a rounding midpoint. Each row's recorded bits come from Arb; the MPFR engine
// must reproduce them, and must have climbed to the recorded rung to do so. After adding rows or
// changing the ladder, build/tests/hard_cases_rows prints the rows with both columns recomputed
// (the file's header says how to regenerate it).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "peverify/oracle/arb_reference.h"
#include "peverify/oracle/hard_cases_testutil.h"

namespace pev::oracle {
namespace {

// The file's rows; an unreadable file or a malformed row is a failure naming its line.
std::vector<HardCase> read_cases() {
  const HardCases file = read_hard_cases();
  for (const std::string& e : file.errors) ADD_FAILURE() << e;
  return file.cases;
}

TEST(HardCases, OracleAndArbGiveTheRecordedBits) {
  const std::vector<HardCase> cases = read_cases();
  // The file holds 38 rows: a shorter read lost some.
  EXPECT_GE(cases.size(), 38u) << kHardCasesPath;
  for (const HardCase& c : cases) {
    SCOPED_TRACE(where(c));
    const Evaluated e = evaluate(c);
    const ArbReference a = arb_reference(c.spec, c.pos, c.pair, c.dtype);
    const uint64_t arb_bits = c.is_sin ? a.sin_bits : a.cos_bits;
    const double arb_value = c.is_sin ? a.sin_value : a.cos_value;
    const std::string values =
        fmt::format("recorded 0x{:x}, oracle {:a} (0x{:x}), arb {:a} (0x{:x})", c.expected_bits,
                    e.oracle_value, e.oracle_bits, arb_value, arb_bits);
    EXPECT_EQ(arb_bits, c.expected_bits) << values;
    EXPECT_EQ(e.oracle_bits, c.expected_bits) << values;
  }
}

// A case that rung 0 decides tests nothing of the ladder: at least 12 rows must need more.
TEST(HardCases, EngineClimbsToTheRecordedRung) {
  int hard = 0;
  for (const HardCase& c : read_cases()) {
    SCOPED_TRACE(where(c));
    const int rung = evaluate(c).rung;
    EXPECT_GE(rung, c.min_rung) << "the ladder decided it lower than recorded: regenerate";
    if (c.min_rung >= 1) ++hard;
  }
  EXPECT_GE(hard, 12);
}

}  // namespace
}  // namespace pev::oracle
