// libFuzzer target: a study config (`peverify report --config`, `peverify sweep --config`) on
// arbitrary bytes is read or refused with one FileError of one line; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "peverify/reports/study/study.h"
#include "peverify/support/atomic_file.h"
#include "peverify/support/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  pev::fuzz::expect_only<pev::FileError>(
      [&] { (void)pev::reports::study::study_config_from_json(text, "study.json"); });
  return 0;
}
