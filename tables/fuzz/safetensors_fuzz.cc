// libFuzzer target: read_safetensors on arbitrary bytes must return a consistent table or throw
// one FileError with a one-line message; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "peverify/tables/fuzz/fuzz_check.h"
#include "peverify/tables/safetensors_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pev::MemorySource src(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  // The only tensor, and a named one (the seeds with several tensors name one "pe").
  pev::fuzz::check([&] { return pev::read_safetensors(src, {}); });
  pev::fuzz::check([&] { return pev::read_safetensors(src, {.tensor = "pe"}); });
  pev::fuzz::check(
      [&] { return pev::read_safetensors(src, {.dtype = pev::Dtype::kBFloat16, .tensor = "pe"}); });
  return 0;
}
