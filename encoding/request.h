// What a caller says about a table and its claim, resolved with every check `peverify` makes: the
// command line and the Python module both come through here, so a bad argument gets the same
// one-line message (a ConfigError) from either.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/model_config.h"
#include "peverify/encoding/spec.h"

namespace pev {

struct TableRequest {
  RotaryRequest rotary;  // d_model, base, a model config, a recipe (each may be absent)
  Schedule schedule = Schedule::kPaper;
  Layout layout = Layout::kInterleaved;
  // Signed, like `positions` below: a parser reading -1 into an unsigned type would wrap it to
  // 2^64 - 1 and the message would speak of that number.
  int64_t start = 0;
};

// A table to compute, `positions` rows: d_model (or a model config) is required, the positions
// must stay within 2^53 and the table within the 2^31 values one call writes.
TableSpec resolve_computed(const TableRequest& request, int64_t positions);

// A table that was read: `rows` x `width` values (a complex table: width counts the real and the
// imaginary parts, and needs the polar layout). d comes from the width unless d_model or a model
// config says it, and then they must agree.
TableSpec resolve_read(const TableRequest& request, uint64_t rows, uint64_t width, bool complex);

// The type a computed table is stored in (oracle's --dtype): a format, or complex64, Meta's
// freqs_cis (cos + i sin in float32, [N, d/2]), which only the polar layout has.
struct StoredType {
  Dtype dtype = Dtype::kFloat32;  // of each value; of the real and imaginary parts if complex
  bool complex = false;
};
inline constexpr std::string_view kComplex64 = "complex64";
StoredType resolve_stored(const std::string& name, Layout layout);

struct ClaimRequest {
  Claim::Kind kind = Claim::Kind::kModel;
  Dtype compute = Dtype::kFloat32;  // the model's u
  std::optional<double> model_c;    // the model's C, when not the default
  bool ggml = false;                // float32 with ggml's recurrence over pairs (Claim::ggml)
};
// `--compute NAME`: a format (float64, float32, float16, bfloat16) or ggml (float32 arithmetic
// with the angle by ggml's recurrence over pairs) into `request`; ConfigError for another name.
void set_compute(ClaimRequest& request, const std::string& name);
inline constexpr std::array<std::string_view, 5> kComputeNames = {"float32", "float16", "bfloat16",
                                                                  "float64", "ggml"};
Claim resolve_claim(const ClaimRequest& request);

// `--NAME` (a count or a position, read signed) as unsigned: ConfigError "--NAME must be >= 0"
// when negative.
uint64_t non_negative(int64_t value, const char* name);

// Worker threads: absent means all cores (0 to the libraries); given, 1..kMaxThreads, else a
// ConfigError that says the range. Thousands of threads only thrash, and a typo should not
// start them.
inline constexpr int kMaxThreads = 1024;
int resolve_threads(std::optional<int64_t> threads);

// A model config by path (a Hugging Face config.json) or, when no such file exists, by the name
// of a preset (models/*.json); `layer_type` as model_rope_from_config's. ConfigError naming the
// file or the field otherwise.
ModelRope model_config_at(const std::string& path_or_preset, std::string_view layer_type = {});

// The config's layer types other than the one `read` holds, each read as `read_as(name)` reads
// it (those it cannot read left out): RotaryRequest::other_layer_types.
std::vector<ModelRope> other_layer_types(
    const ModelRope& read, const std::function<ModelRope(const std::string&)>& read_as);

}  // namespace pev
