#include "peverify/encoding/request.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "peverify/encoding/model_presets.h"

namespace pev {
namespace {

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

TableSpec base_spec(const TableRequest& q) {
  TableSpec spec;
  spec.start = non_negative(q.start, "start");
  spec.schedule = q.schedule;
  spec.layout = q.layout;
  return spec;
}

// A config is a few KiB; a file of megabytes is not one.
constexpr std::streamsize kMaxConfigBytes = std::streamsize{16} << 20;

std::string read_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(fmt::format("cannot read the model config {}", path));
  std::string text(static_cast<size_t>(kMaxConfigBytes) + 1, '\0');
  in.read(text.data(), kMaxConfigBytes + 1);
  if (in.bad()) fail(fmt::format("cannot read the model config {}", path));
  if (in.gcount() > kMaxConfigBytes)
    fail(fmt::format("{} is larger than 16 MiB: not a model config", path));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

}  // namespace

uint64_t non_negative(int64_t value, const char* name) {
  if (value < 0) fail(fmt::format("--{} must be >= 0, got {}", name, value));
  return static_cast<uint64_t>(value);
}

int resolve_threads(std::optional<int64_t> threads) {
  if (!threads) return 0;
  if (*threads < 1 || *threads > kMaxThreads)
    fail(fmt::format("--threads must be in 1..{} (leave it out for all cores), got {}", kMaxThreads,
                     *threads));
  return static_cast<int>(*threads);
}

TableSpec resolve_computed(const TableRequest& q, int64_t signed_positions) {
  if (!q.rotary.d_model && !q.rotary.model) fail("--d-model is required (or --model-config)");
  if (signed_positions < 1)
    fail(fmt::format("--positions must be at least 1, got {}", signed_positions));
  const uint64_t positions = static_cast<uint64_t>(signed_positions);
  TableSpec spec = base_spec(q);
  apply_rotary(q.rotary, spec);
  set_sequence_length(spec, positions);
  if (auto err = validate_range(spec, positions)) fail(*err);
  const uint64_t width = static_cast<uint64_t>(table_width(spec));
  if (positions > (uint64_t{1} << 31) / width)
    fail(fmt::format("a table of {} x {} values is larger than the 2^31 values one call writes",
                     positions, width));
  return spec;
}

TableSpec resolve_read(const TableRequest& q, uint64_t rows, uint64_t width, bool complex) {
  TableSpec spec = base_spec(q);
  if (complex && spec.layout != Layout::kPolar)
    fail("the table holds complex numbers (like Meta's freqs_cis): read it with --layout polar");
  const bool half_width = spec.layout == Layout::kRopeCos || spec.layout == Layout::kRopeSin;
  const uint64_t implied_d = half_width ? 2 * width : width;
  if (implied_d > (uint64_t{1} << 20))
    fail(
        fmt::format("the table is {} wide: d_model above 2^20 is not a positional encoding "
                    "peverify knows",
                    width));
  // d comes from the table's width, unless a flag or a model config says it.
  spec.d_model = static_cast<int>(implied_d);
  apply_rotary(q.rotary, spec);
  if (static_cast<uint64_t>(spec.d_model) != implied_d)
    fail(fmt::format("the table is {} wide, but {} {} with layout {} needs {} columns", width,
                     q.rotary.d_model ? "--d-model" : "the model config's rotary dimension",
                     spec.d_model, name_of(spec.layout),
                     half_width ? spec.d_model / 2 : spec.d_model));
  set_sequence_length(spec, rows);
  if (auto err = validate_range(spec, rows)) fail(*err);
  return spec;
}

StoredType resolve_stored(const std::string& name, Layout layout) {
  if (name == kComplex64) {
    if (layout != Layout::kPolar)
      fail(
          fmt::format("--dtype complex64 needs --layout polar (got {}): a complex element is one "
                      "(cos, sin) pair",
                      name_of(layout)));
    return {Dtype::kFloat32, true};
  }
  const std::optional<Dtype> d = parse_dtype(name);
  if (!d)
    fail(fmt::format("unknown dtype '{}' (float64, float32, float16, bfloat16, complex64)", name));
  return {*d, false};
}

void set_compute(ClaimRequest& request, const std::string& name) {
  request.ggml = name == "ggml";
  if (request.ggml) {
    request.compute = Dtype::kFloat32;
    return;
  }
  const std::optional<Dtype> d = parse_dtype(name);
  if (!d)
    fail(fmt::format("unknown --compute '{}' (float32, float16, bfloat16, float64, ggml)", name));
  request.compute = *d;
}

Claim resolve_claim(const ClaimRequest& q) {
  if (q.model_c && q.kind != Claim::Kind::kModel)
    fail(fmt::format("--model-c sets the model budget's constant: it does not apply to --budget {}",
                     name_of(q.kind)));
  if (q.model_c && !(*q.model_c > 0 && std::isfinite(*q.model_c)))
    fail("--model-c must be a positive number");
  if (q.ggml && q.kind != Claim::Kind::kModel)
    fail(fmt::format("--compute ggml is a model budget: it does not apply to --budget {}",
                     name_of(q.kind)));
  if (q.kind == Claim::Kind::kStrict) return Claim::strict();
  if (q.kind == Claim::Kind::kFaithful) return Claim::faithful();
  Claim c = q.ggml ? Claim::ggml() : Claim::model(q.compute);
  if (q.model_c) c.c = *q.model_c;
  return c;
}

std::vector<ModelRope> other_layer_types(
    const ModelRope& read, const std::function<ModelRope(const std::string&)>& read_as) {
  std::vector<ModelRope> out;
  for (const std::string& name : read.layer_types) {
    if (name == read.layer_type) continue;
    try {  // only the diagnosis tries them: one peverify cannot read is not the user's error
      out.push_back(read_as(name));
    } catch (const std::exception&) {
    }
  }
  return out;
}

ModelRope model_config_at(const std::string& path_or_preset, std::string_view layer_type) {
  std::error_code ec;
  if (std::filesystem::exists(path_or_preset, ec)) {
    try {
      return model_rope_from_config(read_config(path_or_preset), layer_type);
    } catch (const ConfigError& e) {
      fail(fmt::format("{}: {}", path_or_preset, e.what()));
    }
  }
  if (auto preset = model_preset(path_or_preset, layer_type)) return *preset;
  fail(fmt::format("no file {}, and no model preset of that name (presets: {})", path_or_preset,
                   model_preset_names()));
}

}  // namespace pev
