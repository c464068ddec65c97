// libFuzzer target: read_position_ids on arbitrary bytes must return ids of one or three equal
// streams or throw one FileError with a one-line message; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "peverify/support/fuzz/fuzz_check.h"
#include "peverify/tables/position_ids.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pev::MemorySource src(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  try {
    const pev::RowPositions p = pev::read_position_ids(src);
    bool ok = p.stream_count() == 1 || p.stream_count() == 3;
    for (const auto& s : p.streams) ok = ok && s.size() == p.rows();
    if (!ok || p.max_position() > pev::kMaxPosition) {
      std::fprintf(stderr, "inconsistent position ids\n");
      std::abort();
    }
  } catch (const pev::FileError& e) {
    pev::fuzz::check_one_line(e.what());
  }
  return 0;
}
