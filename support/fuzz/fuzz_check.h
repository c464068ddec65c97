// What every reader's libFuzzer target checks: on any input the reader returns, or throws its
// documented error with a one-line message (docs/architecture.md §8). Any other exception escapes
// to libFuzzer, which reports it as a crash, as it does sanitizer reports.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace pev::fuzz {

// Aborts unless `message` is one non-empty line of printable ASCII (what the readers' printable()
// makes of user text).
inline void check_one_line(const char* message) {
  if (*message == '\0') {
    std::fprintf(stderr, "empty error message\n");
    std::abort();
  }
  for (const char* p = message; *p; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c >= 0x7f) {
      std::fprintf(stderr, "message is not one printable line: %s\n", message);
      std::abort();
    }
  }
}

// Runs read(); an Error is fine if its message is one line, anything else escapes.
template <typename Error, typename Read>
void expect_only(Read read) {
  try {
    read();
  } catch (const Error& e) {
    check_one_line(e.what());
  }
}

}  // namespace pev::fuzz
