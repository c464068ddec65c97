// A rotary recipe as configs spell it: the keys of rope_scaling (transformers 4) or of
// rope_parameters (transformers 5), read into a RopeScaling with Hugging Face's defaults and
// checked field by field; every problem is a ConfigError of one line naming the field.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "peverify/encoding/config_json.h"
#include "peverify/encoding/rope.h"

namespace pev::config_json {

// The recipe object `rs`; `where` prefixes every message with the section read
// ("text_config.rope_scaling."); `top` is the config section (for a top-level
// original_max_position_embeddings), or an empty object; max_position is the model's
// max_position_embeddings (0: unknown); model_type decides M-RoPE's layout where the model fixes
// it.
RopeScaling read_recipe(const json& rs, const std::string& where, const json& top,
                        uint64_t max_position, std::string_view model_type = {});

// The recipe's own fields, before any table gives it a sequence length; `where` prefixes the
// message with the section read.
void validate_recipe(const RopeScaling& r, int d, const std::string& where);

}  // namespace pev::config_json
