// What the readers' fuzz targets check on every input.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "peverify/encoding/format.h"
#include "peverify/support/fuzz/fuzz_check.h"
#include "peverify/tables/table_file.h"

namespace pev::fuzz {

// read() either returns a table whose sizes agree, or throws FileError with a one-line,
// printable message. Other exceptions escape and libFuzzer reports them.
template <typename Read>
void check(Read read) {
  try {
    const LoadedTable t = read();
    const int size = t.raw.size() / (t.values.empty() ? 1 : t.values.size());
    if (t.rows == 0 || t.width == 0 || t.values.size() != t.rows * t.width ||
        size * 8 != traits_of(t.dtype).storage_bits || t.description.empty()) {
      std::fprintf(stderr, "inconsistent table: %s\n", t.description.c_str());
      std::abort();
    }
  } catch (const FileError& e) {
    check_one_line(e.what());
  }
}

}  // namespace pev::fuzz
