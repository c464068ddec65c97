// What the readers' fuzz targets check on every input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "encoding/format.h"
#include "tables/table_file.h"

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
    const char* m = e.what();
    if (*m == '\0') std::abort();
    for (const char* p = m; *p; ++p) {
      if (*p < 0x20 || *p == 0x7f) {
        std::fprintf(stderr, "message is not one printable line: %s\n", m);
        std::abort();
      }
    }
  }
}

}  // namespace pev::fuzz
