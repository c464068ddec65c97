#include "peverify/encoding/recipe_json.h"

#include <fmt/format.h>

#include "peverify/encoding/model_config.h"

namespace pev {
namespace {

using namespace config_json;

// M-RoPE's layout is the model's: Qwen2-VL and Qwen2.5-VL section the pairs
// (apply_multimodal_rotary_pos_emb), Qwen3-VL interleaves them whatever mrope_interleaved says
// (Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope). Other models: the config's flag.
std::optional<bool> interleaved_by_model(std::string_view model_type) {
  if (model_type.starts_with("qwen3_vl")) return true;
  if (model_type.starts_with("qwen2_vl") || model_type.starts_with("qwen2_5_vl")) return false;
  return std::nullopt;
}

}  // namespace

namespace config_json {

// The recipe object: rope_scaling's keys (Hugging Face's names). `top` is the config section (for
// a top-level original_max_position_embeddings), or an empty object.
RopeScaling read_recipe(const json& rs, const std::string& where, const json& top,
                        uint64_t max_position, std::string_view model_type) {
  RopeScaling r;
  const json* type = find(rs, "rope_type");
  if (!type) type = find(rs, "type");
  if (type && !type->is_string())
    fail(fmt::format("{}rope_type must be a string, got {}", where, shown(*type)));
  // transformers 5 (standardize_rope_params) reads a missing type as the default recipe.
  const std::string name = type ? type->get<std::string>() : "default";
  // Qwen2-VL's configs map `mrope` to the default recipe and keep mrope_section.
  const bool mrope = name == "mrope";
  const auto t = mrope ? RopeType::kDefault : parse_rope_type(name);
  if (!t)
    fail(
        fmt::format("{}rope_type {} is not a recipe peverify knows (default, linear, dynamic, "
                    "yarn, longrope, llama3, proportional, mrope)",
                    where, shown(*type)));  // shown: the config's text, escaped to one line
  r.type = *t;
  r.max_position = max_position;
  if (find(rs, "mrope_section")) {
    r.mrope_section = count_list(rs, "mrope_section", where);
    if (find(rs, "mrope_interleaved"))
      r.mrope_interleaved = bool_at(rs, "mrope_interleaved", where);
    if (auto by_model = interleaved_by_model(model_type)) r.mrope_interleaved = *by_model;
  } else if (mrope) {
    fail(where + "mrope_section is missing (rope_type mrope)");
  }
  // transformers 5 (standardize_rope_params) prefers the config's own value (Phi-3's).
  if (find(top, "original_max_position_embeddings"))
    r.original_max_position = count_at(top, "original_max_position_embeddings", "");
  else if (find(rs, "original_max_position_embeddings"))
    r.original_max_position = count_at(rs, "original_max_position_embeddings", where);
  switch (r.type) {
    case RopeType::kDefault:
      break;
    case RopeType::kLinear:
    case RopeType::kDynamic:
      r.factor = number_at(rs, "factor", where);
      break;
    case RopeType::kYarn:
      r.factor = number_at(rs, "factor", where);
      // Hugging Face reads these with `or`: a missing, null or zero value means the default.
      if (auto b = optional_number(rs, "beta_fast", where); b && *b != 0) r.beta_fast = *b;
      if (auto b = optional_number(rs, "beta_slow", where); b && *b != 0) r.beta_slow = *b;
      r.mscale = optional_number(rs, "mscale", where);
      r.mscale_all_dim = optional_number(rs, "mscale_all_dim", where);
      r.attention_factor = optional_number(rs, "attention_factor", where);
      if (find(rs, "truncate")) r.truncate = bool_at(rs, "truncate", where);
      break;
    case RopeType::kLongRope:
      r.short_factor = number_list(rs, "short_factor", where);
      r.long_factor = number_list(rs, "long_factor", where);
      if (auto f = optional_number(rs, "factor", where)) r.factor = *f;
      r.attention_factor = optional_number(rs, "attention_factor", where);
      break;
    case RopeType::kLlama3:
      r.factor = number_at(rs, "factor", where);
      r.low_freq_factor = number_at(rs, "low_freq_factor", where);
      r.high_freq_factor = number_at(rs, "high_freq_factor", where);
      break;
    case RopeType::kProportional:
      // _compute_proportional_rope_parameters: .get("factor", 1.0), and the share of pairs that
      // rotate from the recipe's own partial_rotary_factor (default 1.0).
      if (auto f = optional_number(rs, "factor", where)) r.factor = *f;
      if (auto p = optional_number(rs, "partial_rotary_factor", where))
        r.partial_rotary_factor = *p;
      break;
  }
  // Without a pretrained length, yarn, longrope and llama3 take max_position_embeddings
  // (transformers 5); longrope's expanded length is then its pretrained one, and `factor` scales
  // attention.
  const bool pretrained =
      r.type == RopeType::kYarn || r.type == RopeType::kLongRope || r.type == RopeType::kLlama3;
  if (pretrained && r.original_max_position == 0) {
    r.original_max_position = max_position;
    if (r.type == RopeType::kLongRope) r.max_position = 0;
  }
  if (r.type == RopeType::kLlama3 && r.original_max_position == 0)
    fail(where + "original_max_position_embeddings is missing");
  return r;
}

// The recipe's own fields, before any table gives it a sequence length; `where` prefixes the
// message with the section read.
void validate_recipe(const RopeScaling& r, int d, const std::string& where) {
  RopeScaling probe = r;
  if (needs_sequence_length(probe) && probe.sequence_length == 0) probe.sequence_length = 1;
  if (auto err = validate_rope(probe, d)) fail(where.empty() ? *err : where + ": " + *err);
}

}  // namespace config_json

RopeScaling rope_scaling_from_json(std::string_view json_text, uint64_t max_position) {
  const json rs = parse(json_text, "--rope-scaling");
  // A recipe given alone may carry the model's max_position_embeddings (dynamic needs it).
  if (find(rs, "max_position_embeddings"))
    max_position = count_at(rs, "max_position_embeddings", "rope_scaling.");
  return config_json::read_recipe(rs, "rope_scaling.", json::object(), max_position);
}

}  // namespace pev
