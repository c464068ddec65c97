#include "encoding/model_config.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace pev {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

// A JSON value as the config writes it, for messages: short, one line.
// A user's value in a one-line message: ASCII (plain dump() throws on invalid UTF-8 and passes
// other bytes through), DEL escaped too, cut short.
std::string shown(const json& v) {
  std::string s;
  for (const char c : v.dump(-1, ' ', true, json::error_handler_t::replace))
    s += c == '\x7f' ? std::string("\\u007f") : std::string(1, c);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

// The key's value when present and not null.
const json* find(const json& object, const std::string& key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

double number_at(const json& object, const std::string& key, const std::string& where) {
  const json* v = find(object, key);
  if (!v) fail(fmt::format("{}{} is missing", where, key));
  if (!v->is_number()) fail(fmt::format("{}{} must be a number, got {}", where, key, shown(*v)));
  const double x = v->get<double>();
  if (!std::isfinite(x)) fail(fmt::format("{}{} must be finite", where, key));
  return x;
}

std::optional<double> optional_number(const json& object, const std::string& key,
                                      const std::string& where) {
  if (!find(object, key)) return std::nullopt;
  return number_at(object, key, where);
}

// A count (head_dim, max_position_embeddings, ...): a non-negative integer.
uint64_t count_at(const json& object, const std::string& key, const std::string& where) {
  const double x = number_at(object, key, where);
  if (x < 0 || x != std::floor(x) || x > 9007199254740992.0)
    fail(fmt::format("{}{} must be a non-negative integer, got {}", where, key,
                     shown(object.at(key))));
  return static_cast<uint64_t>(x);
}

std::vector<double> number_list(const json& object, const std::string& key,
                                const std::string& where) {
  const json* v = find(object, key);
  if (!v) fail(fmt::format("{}{} is missing", where, key));
  if (!v->is_array()) fail(fmt::format("{}{} must be a list of numbers", where, key));
  std::vector<double> out;
  for (const json& x : *v) {
    if (!x.is_number())
      fail(fmt::format("{}{} must hold numbers only, got {}", where, key, shown(x)));
    out.push_back(x.get<double>());
  }
  return out;
}

json parse(std::string_view text, const char* what) {
  try {
    json j = json::parse(text);
    if (!j.is_object()) fail(fmt::format("{} must be a JSON object", what));
    return j;
  } catch (const json::parse_error& e) {
    fail(fmt::format("{} is not valid JSON (at byte {})", what, e.byte));
  } catch (const json::exception&) {  // a number beyond double's range, found while parsing
    fail(fmt::format("{} is not valid JSON (a number out of range)", what));
  }
}

// The recipe object: rope_scaling's keys (Hugging Face's names). `top` is the whole config (for
// a top-level original_max_position_embeddings), or an empty object.
RopeScaling read_recipe(const json& rs, const std::string& where, const json& top,
                        uint64_t max_position) {
  RopeScaling r;
  const json* type = find(rs, "rope_type");
  if (!type) type = find(rs, "type");
  if (!type) fail(where + "rope_type is missing");
  if (!type->is_string())
    fail(fmt::format("{}rope_type must be a string, got {}", where, shown(*type)));
  const auto t = parse_rope_type(type->get<std::string>());
  if (!t)
    fail(
        fmt::format("{}rope_type {} is not a recipe peverify knows (default, linear, dynamic, "
                    "yarn, longrope, llama3)",
                    where, shown(*type)));  // shown: the config's text, escaped to one line
  r.type = *t;
  r.max_position = max_position;
  if (find(rs, "original_max_position_embeddings"))
    r.original_max_position = count_at(rs, "original_max_position_embeddings", where);
  else if (find(top, "original_max_position_embeddings"))
    r.original_max_position = count_at(top, "original_max_position_embeddings", "");
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
      if (const json* tr = find(rs, "truncate")) {
        if (!tr->is_boolean()) fail(where + "truncate must be true or false");
        r.truncate = tr->get<bool>();
      }
      if (r.original_max_position == 0) r.original_max_position = max_position;
      break;
    case RopeType::kLongRope:
      r.short_factor = number_list(rs, "short_factor", where);
      r.long_factor = number_list(rs, "long_factor", where);
      if (auto f = optional_number(rs, "factor", where)) r.factor = *f;
      r.attention_factor = optional_number(rs, "attention_factor", where);
      if (r.original_max_position == 0) {
        // Without a pretrained length the expanded one is it, and `factor` scales attention.
        r.original_max_position = max_position;
        r.max_position = 0;
      }
      break;
    case RopeType::kLlama3:
      r.factor = number_at(rs, "factor", where);
      r.low_freq_factor = number_at(rs, "low_freq_factor", where);
      r.high_freq_factor = number_at(rs, "high_freq_factor", where);
      if (r.original_max_position == 0) fail(where + "original_max_position_embeddings is missing");
      break;
  }
  return r;
}

// The recipe's own fields, before any table gives it a sequence length.
void validate_recipe(const RopeScaling& r, int d) {
  RopeScaling probe = r;
  if (needs_sequence_length(probe) && probe.sequence_length == 0) probe.sequence_length = 1;
  if (auto err = validate_rope(probe, d)) fail(*err);
}

}  // namespace

ModelRope model_rope_from_config(std::string_view json_text) {
  const json c = parse(json_text, "the model config");
  ModelRope m;
  if (const json* t = find(c, "model_type"); t && t->is_string())
    m.model_type = t->get<std::string>();
  // transformers 5 keeps the base and the recipe in rope_parameters.
  const json* params = find(c, "rope_parameters");
  if (params && !params->is_object()) fail("rope_parameters must be an object");
  if (find(c, "rope_theta"))
    m.base = number_at(c, "rope_theta", "");
  else if (find(c, "rotary_emb_base"))  // GPT-NeoX
    m.base = number_at(c, "rotary_emb_base", "");
  else if (params && find(*params, "rope_theta"))
    m.base = number_at(*params, "rope_theta", "rope_parameters.");
  if (find(c, "max_position_embeddings"))
    m.max_position = count_at(c, "max_position_embeddings", "");

  if (find(c, "qk_rope_head_dim")) {  // DeepSeek's multi-head latent attention
    m.head_dim = static_cast<int>(count_at(c, "qk_rope_head_dim", ""));
  } else if (find(c, "head_dim")) {
    m.head_dim = static_cast<int>(count_at(c, "head_dim", ""));
  } else if (find(c, "hidden_size") && find(c, "num_attention_heads")) {
    const uint64_t hidden = count_at(c, "hidden_size", "");
    const uint64_t heads = count_at(c, "num_attention_heads", "");
    if (heads == 0) fail("num_attention_heads must be > 0");
    m.head_dim = static_cast<int>(hidden / heads);
  } else {
    fail("head_dim is missing, and there is no hidden_size / num_attention_heads to derive it");
  }
  if (find(c, "partial_rotary_factor"))
    m.partial_rotary_factor = number_at(c, "partial_rotary_factor", "");
  else if (params && find(*params, "partial_rotary_factor"))
    m.partial_rotary_factor = number_at(*params, "partial_rotary_factor", "rope_parameters.");
  else if (find(c, "rotary_pct"))  // GPT-NeoX
    m.partial_rotary_factor = number_at(c, "rotary_pct", "");
  if (!(m.partial_rotary_factor > 0 && m.partial_rotary_factor <= 1))
    fail(fmt::format("partial_rotary_factor must be in (0, 1], got {}", m.partial_rotary_factor));
  // Hugging Face's int(head_dim * partial_rotary_factor), in double, truncated.
  m.rotary_dim = static_cast<int>(static_cast<double>(m.head_dim) * m.partial_rotary_factor);
  if (find(c, "rotary_dim"))  // GPT-J gives it in full
    m.rotary_dim = static_cast<int>(count_at(c, "rotary_dim", ""));
  if (m.rotary_dim < 2 || m.rotary_dim % 2 != 0)
    fail(
        fmt::format("the rotary dimension (head_dim {} x partial_rotary_factor {}) is {}: it must "
                    "be even and >= 2",
                    m.head_dim, m.partial_rotary_factor, m.rotary_dim));

  const json* rs = find(c, "rope_scaling");
  std::string where = "rope_scaling.";
  if (!rs && params) {
    rs = params;
    where = "rope_parameters.";
  }
  if (rs) {
    if (!rs->is_object()) fail(where.substr(0, where.size() - 1) + " must be an object");
    m.rope = read_recipe(*rs, where, c, m.max_position);
  }
  if (!(m.base > 1)) fail(fmt::format("rope_theta must be > 1, got {}", m.base));
  validate_recipe(m.rope, m.rotary_dim);
  return m;
}

RopeScaling rope_scaling_from_json(std::string_view json_text, uint64_t max_position) {
  const json rs = parse(json_text, "--rope-scaling");
  // A recipe given alone may carry the model's max_position_embeddings (dynamic needs it).
  if (find(rs, "max_position_embeddings"))
    max_position = count_at(rs, "max_position_embeddings", "rope_scaling.");
  return read_recipe(rs, "rope_scaling.", json::object(), max_position);
}

void apply_rotary(const RotaryRequest& q, TableSpec& spec) {
  if (q.d_model) spec.d_model = *q.d_model;
  if (q.base) spec.base = *q.base;
  if (q.model) {
    const ModelRope& m = *q.model;
    if (q.d_model && *q.d_model != m.rotary_dim)
      fail(
          fmt::format("d_model {} contradicts {}: its rotary dimension is {} (head_dim {} x "
                      "partial_rotary_factor {:g})",
                      *q.d_model, q.model_name, m.rotary_dim, m.head_dim, m.partial_rotary_factor));
    if (q.base && *q.base != m.base)
      fail(fmt::format("base {:g} contradicts {}: its rope_theta is {:g}", *q.base, q.model_name,
                       m.base));
    spec.d_model = m.rotary_dim;
    spec.base = m.base;
    spec.rope = m.rope;
  }
  if (q.recipe) {
    if (q.model && q.model->rope.type != RopeType::kDefault && !(*q.recipe == q.model->rope))
      fail(fmt::format("the rope scaling given contradicts the rope_scaling of {}", q.model_name));
    spec.rope = *q.recipe;
  }
}

void set_sequence_length(TableSpec& spec, uint64_t rows) {
  if (needs_sequence_length(spec.rope)) spec.rope.sequence_length = spec.start + rows;
}

TableSpec spec_of(const ModelRope& model, Layout layout, uint64_t start, uint64_t rows) {
  TableSpec spec;
  spec.d_model = model.rotary_dim;
  spec.base = model.base;
  spec.layout = layout;
  spec.start = start;
  spec.rope = model.rope;
  set_sequence_length(spec, rows);
  return spec;
}

}  // namespace pev
