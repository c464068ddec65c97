// What a model's Hugging Face config.json says about its rotary embedding: the rotary dimension,
// the base and the recipe (docs/mathematics.md §12). Configs are user input: every problem is a
// ConfigError of one line that names the field.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/rope.h"
#include "peverify/encoding/spec.h"

namespace pev {

struct ConfigError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct ModelRope {
  std::string model_type;        // the text model's: "llama", "gemma3_text" (empty when none given)
  std::string outer_model_type;  // the whole config's: "gemma3" (= model_type when not nested)
  // Where the text model's fields were read, as transformers' get_text_config() finds them: ""
  // (the top level), "text_config", "thinker_config.text_config".
  std::string section;
  // The layer types whose rotary parameters differ (Gemma 3: full_attention, sliding_attention);
  // empty when every layer has the same.
  std::vector<std::string> layer_types;
  std::string layer_type;  // whose parameters these are ("" when not named and all share)
  // Keys one edit from a rotary key (`rope_thetaa`), read as transformers reads them (ignored):
  // one line each, for the caller to show.
  std::vector<std::string> warnings;
  bool layer_type_chosen = false;      // not named: peverify took the full-attention layers'
  int head_dim = 0;                    // head_dim, or hidden_size / num_attention_heads
  double partial_rotary_factor = 1.0;  // partial_rotary_factor (GPT-NeoX: rotary_pct)
  int rotary_dim = 0;                  // int(head_dim * partial_rotary_factor): the table's d
  double base = default_base();        // rope_theta (the default base when absent, as Hugging Face)
  uint64_t max_position = 0;           // max_position_embeddings (0 when absent)
  RopeScaling rope;  // sequence_length is the table's business (set_sequence_length)
};

// Reads config.json text (a whole config, or a transformers config's to_dict()): the text model's
// section (text_config in multimodal configs), rope_scaling with `rope_type` or the older `type`
// (M-RoPE's `mrope`), transformers 5's rope_parameters, flat or keyed by layer type;
// original_max_position_embeddings inside the recipe or at the config's top level. `layer_type`
// names the layers to read where they differ (docs/mathematics.md §12.2); empty: the full-attention
// layers'. An unknown name is a ConfigError listing the config's layer types.
ModelRope model_rope_from_config(std::string_view json_text, std::string_view layer_type = {});

// "text_config of gemma3, layer type full_attention (not named: the global layers'; also
// sliding_attention)": what was read, in one line; empty for a flat config of one layer type.
std::string describe(const ModelRope& m);

// Reads a recipe alone (`--rope-scaling '{"rope_type": "yarn", ...}'`); max_position is the
// model's max_position_embeddings when known (0 otherwise).
RopeScaling rope_scaling_from_json(std::string_view json_text, uint64_t max_position);

// The spec of a table of `rows` positions from `start` built from the config: d, base, recipe,
// with the recipe's sequence length set to start + rows (Hugging Face's max position id + 1).
TableSpec spec_of(const ModelRope& model, Layout layout, uint64_t start, uint64_t rows);

// Sets the sequence length recipes that need one depend on: start + rows.
void set_sequence_length(TableSpec& spec, uint64_t rows);

// How a caller describes a table's frequencies: explicit values and/or a model config and/or a
// recipe alone (the command line's --d-model, --base, --model-config, --rope-scaling; Python's
// keyword arguments).
struct RotaryRequest {
  std::optional<int> d_model;
  std::optional<double> base;
  std::optional<ModelRope> model;     // from model_rope_from_config
  std::string model_name;             // how messages name the config ("config.json")
  std::optional<RopeScaling> recipe;  // from rope_scaling_from_json
  // The config's other layer types, read as `model` was (Gemma 3's sliding_attention where the
  // full_attention layers' were asked for): what a failing verdict's diagnosis tries.
  std::vector<ModelRope> other_layer_types;
};

// The config's (or the recipe's) rotary dimension, base and recipe in `spec`, else the explicit
// values. An explicit d_model or base that contradicts the config, or a recipe that contradicts
// its recipe, is a ConfigError naming both. The sequence length is set_sequence_length's.
void apply_rotary(const RotaryRequest& request, TableSpec& spec);

// `spec` as each of the request's other layer types would make it (the config's parameters of
// those layers, the rest of `spec` kept): the layer type's name and its spec.
std::vector<std::pair<std::string, TableSpec>> layer_type_specs(const RotaryRequest& request,
                                                                const TableSpec& spec);

// Where the rotary parameters came from, for a verdict's first line: "gemma-3-27b-it: text_config
// of gemma3, layer type sliding_attention"; empty without a model config.
std::string rotary_source(const RotaryRequest& request);

}  // namespace pev
