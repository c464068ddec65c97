// Hard cases for the oracle's precision ladder (oracle/testdata/hard_cases.tsv): elements whose
// rounding rung 0 cannot decide, by cancellation near a zero of sin or cos or by an exact value
// within a hair of a rounding midpoint. Each row's recorded bits come from Arb; the MPFR engine
// must reproduce them, and must have climbed to the recorded rung to do so.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/oracle/arb_agreement_testutil.h"
#include "peverify/oracle/arb_reference.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle {
namespace {

// Relative to the repository root, where ctest runs the tests.
constexpr const char* kPath = "oracle/testdata/hard_cases.tsv";

struct HardCase {
  int line = 0;
  TableSpec spec;
  std::string base_text;  // as written, to print rows back unchanged
  uint64_t pos = 0;
  int pair = 0;
  bool is_sin = true;
  Dtype dtype = Dtype::kFloat32;
  uint64_t expected_bits = 0;
  int min_rung = 0;
  std::string origin;
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, '\t');) fields.push_back(f);
  return fields;
}

// Rows in file order; a malformed row is a test failure naming its line.
std::vector<HardCase> read_cases() {
  std::ifstream in(kPath);
  EXPECT_TRUE(in) << "cannot open " << kPath << " (tests run from the repository root)";
  std::vector<HardCase> cases;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#' || line.rfind("d_model", 0) == 0) continue;
    const std::vector<std::string> f = split_tabs(line);
    const auto schedule = f.size() == 10 ? parse_schedule(f[2]) : std::nullopt;
    const auto dtype = f.size() == 10 ? parse_dtype(f[6]) : std::nullopt;
    if (!schedule || !dtype || (f[5] != "sin" && f[5] != "cos")) {
      ADD_FAILURE() << kPath << ":" << n << ": malformed row: " << line;
      continue;
    }
    HardCase c;
    c.line = n;
    c.spec.d_model = std::stoi(f[0]);
    c.base_text = f[1];
    c.spec.base = std::strtod(f[1].c_str(), nullptr);  // decimal or hex-float, both exact
    c.spec.schedule = *schedule;
    c.pos = std::stoull(f[3]);
    c.pair = std::stoi(f[4]);
    c.is_sin = f[5] == "sin";
    c.dtype = *dtype;
    c.expected_bits = std::stoull(f[7], nullptr, 16);
    c.min_rung = std::stoi(f[8]);
    c.origin = f[9];
    if (auto err = validate_range(c.spec, 1)) ADD_FAILURE() << kPath << ":" << n << ": " << *err;
    cases.push_back(c);
  }
  return cases;
}

std::string where(const HardCase& c) {
  return fmt::format("{}:{}: d={} base={} {} pos={} pair={} {} {}", kPath, c.line, c.spec.d_model,
                     c.base_text, name_of(c.spec.schedule), c.pos, c.pair, c.is_sin ? "sin" : "cos",
                     name_of(c.dtype));
}

struct Evaluated {
  uint64_t oracle_bits;
  double oracle_value;
  int rung;
};

Evaluated evaluate(const HardCase& c) {
  const auto engine = make_mpfr_engine(c.spec, c.dtype);
  TileValues v;
  const int rung = agreement::decided_rung(*engine, c.pos, c.pair, v);
  const double value = c.is_sin ? v.sin_rounded[0] : v.cos_rounded[0];
  return {encode_exact(value, c.dtype), value, rung};
}

TEST(HardCases, OracleAndArbGiveTheRecordedBits) {
  for (const HardCase& c : read_cases()) {
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

// Prints the file's rows with expected_bits and min_rung recomputed (Arb and the engine), for
// regenerating the file after adding keys or changing the ladder (see the file's header):
//   build/tests/oracle_arb_test --gtest_also_run_disabled_tests
//       --gtest_filter=HardCases.DISABLED_PrintRows
TEST(HardCases, DISABLED_PrintRows) {
  fmt::print(
      "d_model\tbase\tschedule\tpos\tpair\tfunction\tdtype\texpected_bits\tmin_rung\t"
      "origin\n");
  for (const HardCase& c : read_cases()) {
    const Evaluated e = evaluate(c);
    fmt::print("{}\t{}\t{}\t{}\t{}\t{}\t{}\t0x{:x}\t{}\t{}\n", c.spec.d_model, c.base_text,
               name_of(c.spec.schedule), c.pos, c.pair, c.is_sin ? "sin" : "cos", name_of(c.dtype),
               arb_reference_bits(c.spec, c.pos, c.pair, c.is_sin, c.dtype), e.rung, c.origin);
  }
}

}  // namespace
}  // namespace pev::oracle
