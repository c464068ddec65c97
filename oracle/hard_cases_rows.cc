// Prints oracle/testdata/hard_cases.tsv's header and data rows with the derived columns recomputed:
// expected_bits by the Arb reference, min_rung as the rung of the MPFR engine's ladder that
// decided the element. For regenerating the file after adding rows (with placeholders in those
// two columns) or changing the ladder; the comment block at the file's head is kept by hand:
//   build/tests/hard_cases_rows [oracle/testdata/hard_cases.tsv] > rows.tsv
// Run from the repository root. Exits 1, printing nothing to stdout, on a row it cannot read.
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "peverify/oracle/arb_reference.h"
#include "peverify/oracle/hard_cases_testutil.h"

int main(int argc, char** argv) {
  using namespace pev::oracle;
  if (argc > 2) {
    fmt::print(stderr, "usage: {} [hard_cases.tsv]\n", argv[0]);
    return 2;
  }
  const std::string path = argc == 2 ? argv[1] : kHardCasesPath;
  const HardCases file = read_hard_cases(path);
  for (const std::string& e : file.errors) fmt::print(stderr, "{}\n", e);
  if (!file.errors.empty()) return 1;
  std::string out = std::string(kHardCasesHeader) + "\n";
  for (const HardCase& c : file.cases) {
    const uint64_t bits = arb_reference_bits(c.spec, c.pos, c.pair, c.is_sin, c.dtype);
    out += row_of(c, bits, evaluate(c).rung) + "\n";
  }
  fmt::print("{}", out);
  return 0;
}
