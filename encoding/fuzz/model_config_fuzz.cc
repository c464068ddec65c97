// libFuzzer target: a model's config.json (model_rope_from_config) and a recipe alone
// (rope_scaling_from_json) on arbitrary bytes return or throw one ConfigError with a one-line
// message; anything else (a crash, a sanitizer report, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "peverify/encoding/model_config.h"
#include "peverify/support/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  pev::fuzz::expect_only<pev::ConfigError>([&] {
    const pev::ModelRope m = pev::model_rope_from_config(text);
    // What `peverify oracle --model-config` does next: the spec of a few rows.
    (void)pev::spec_of(m, pev::Layout::kInterleaved, 0, 16);
  });
  pev::fuzz::expect_only<pev::ConfigError>([&] { (void)pev::rope_scaling_from_json(text, 0); });
  pev::fuzz::expect_only<pev::ConfigError>([&] { (void)pev::rope_scaling_from_json(text, 8192); });
  return 0;
}
