// The hard cases of the oracle's precision ladder (oracle/testdata/hard_cases.tsv), as the test and
// the program that regenerates the file (hard_cases_rows.cc) read, evaluate and print them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "peverify/encoding/spec.h"

namespace pev::oracle {

// Relative to the repository root, where ctest runs the tests.
inline constexpr const char* kHardCasesPath = "oracle/testdata/hard_cases.tsv";

// The file's header line, without its newline.
inline constexpr const char* kHardCasesHeader =
    "d_model\tbase\tschedule\tpos\tpair\tfunction\tdtype\texpected_bits\tmin_rung\torigin";

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

struct HardCases {
  std::vector<HardCase> cases;      // the data rows, in file order
  std::vector<std::string> errors;  // "path:line: what", one for each row that could not be read
};

// The rows of `path`, skipping comments, blank lines and the header; an unreadable file is one
// error.
HardCases read_hard_cases(const std::string& path = kHardCasesPath);

// "path:line: d=... base=... schedule pos=... pair=... sin|cos dtype", to name a case.
std::string where(const HardCase& c, const std::string& path = kHardCasesPath);

struct Evaluated {
  uint64_t oracle_bits = 0;
  double oracle_value = 0;
  int rung = -1;  // the rung of the MPFR engine's ladder that decided it
};

// The case by a fresh MPFR engine built for its spec and dtype.
Evaluated evaluate(const HardCase& c);

// The case's row as the file holds it, with `expected_bits` and `min_rung` in place of the
// recorded ones; without a newline.
std::string row_of(const HardCase& c, uint64_t expected_bits, int min_rung);

}  // namespace pev::oracle
