// libFuzzer target: read_npy on arbitrary bytes must return a consistent table or throw one
// FileError with a one-line message; anything else (a crash, a sanitizer report, another
// exception, a huge allocation) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "peverify/tables/fuzz/fuzz_check.h"
#include "peverify/tables/npy_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pev::MemorySource src(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  // Without --dtype, and with it: 16-bit integer data is only read with --dtype.
  pev::fuzz::check([&] { return pev::read_npy(src, {}); });
  pev::fuzz::check([&] { return pev::read_npy(src, {.dtype = pev::Dtype::kBFloat16}); });
  return 0;
}
