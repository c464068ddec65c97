#include "peverify/encoding/model_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "peverify/encoding/config_json.h"
#include "peverify/encoding/recipe_json.h"

namespace pev {
namespace {

using namespace config_json;

// What transformers' config classes use for a field a config leaves out, where it is not the
// generic default (rope_theta the default base, head_dim hidden_size / num_attention_heads).
// 0: generic.
struct ClassDefaults {
  std::string_view model_type;
  double rope_theta;
  double local_base;  // Gemma 3's rope_local_base_freq
  int head_dim;
  uint64_t max_position;
  int global_head_dim = 0;  // Gemma 4's full-attention layers
};
constexpr ClassDefaults kClassDefaults[] = {
    {"gemma3_text", 1e6, 1e4, 256, 131072},     // Gemma3TextConfig.__init__
    {"gemma4_text", 1e4, 0, 256, 131072, 512},  // Gemma4TextConfig (global_head_dim 512)
    {"llama4_text", 5e5, 0, 128, 0},            // Llama4TextConfig (default_theta, head_dim)
    {"qwen3_vl_text", 5e5, 0, 0, 0},            // Qwen3VLTextConfig.default_theta
    {"qwen2_vl_text", 1e6, 0, 0, 0},            // Qwen2VLTextConfig: rope_theta 1000000.0
    {"qwen2_vl", 1e6, 0, 0, 0},                 // flat Qwen2-VL configs build that text config
};

const ClassDefaults& class_defaults(std::string_view model_type) {
  for (const ClassDefaults& d : kClassDefaults)
    if (d.model_type == model_type) return d;
  static const ClassDefaults generic{"", default_base(), 0, 0, 0};
  return generic;
}

std::string string_at(const json& object, const char* key) {
  const json* v = find(object, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string joined(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const std::string& n : names) quoted.push_back(shown(json(n)));
  return fmt::format("{}", fmt::join(quoted, ", "));
}

// The text model's section, as transformers' get_text_config() finds it: Qwen2.5-Omni's override
// descends into thinker_config first; then exactly one of text_encoder, decoder, generator,
// text_config (several: transformers refuses to choose), else the config itself.
const json& text_section(const json& top, std::string& path) {
  const json* c = &top;
  if (const json* t = find(top, "thinker_config"); t && t->is_object()) {
    c = t;
    path = "thinker_config";
  }
  std::vector<std::string> found;
  for (const char* name : {"text_encoder", "decoder", "generator", "text_config"})
    if (const json* s = find(*c, name); s && s->is_object()) found.push_back(name);
  if (found.size() > 1)
    fail(
        fmt::format("the config has several text sections ({}): transformers' get_text_config "
                    "refuses to choose",
                    joined(found)));
  if (found.empty()) return *c;
  path += (path.empty() ? "" : ".") + found[0];
  return c->at(found[0]);
}

// transformers 5's rope_parameters keyed by layer type: an object of objects (a flat recipe holds
// a name and numbers).
bool keyed_by_layer_type(const json* params) {
  if (!params || params->empty()) return false;
  return std::all_of(params->begin(), params->end(), [](const json& v) { return v.is_object(); });
}

// A layer type named that the config does not have, refused with those it has.
[[noreturn]] void refuse_layer_type(const std::string& name, const std::string& who,
                                    const std::vector<std::string>& known) {
  if (known.empty())
    fail(fmt::format(
        "layer type {}: {} declares no layer_types (every layer has the same rotary parameters)",
        shown(json(name)), who));
  fail(fmt::format("layer type {}: {} has layer types {}", shown(json(name)), who, joined(known)));
}

// The layer type to read, from those whose rotary parameters differ (m.layer_types) or, where all
// layers share them, those the config declares.
std::string resolve_layer_type(ModelRope& m, std::string_view named,
                               const std::vector<std::string>& declared) {
  const std::string name(named);
  const std::string who = m.model_type.empty() ? "the config" : m.model_type;
  if (!m.layer_types.empty()) {
    if (name.empty()) {
      if (!contains(m.layer_types, "full_attention"))
        fail(fmt::format("{} gives its layer types different rotary parameters ({}): name one", who,
                         joined(m.layer_types)));
      m.layer_type_chosen = true;
      return "full_attention";
    }
    if (!contains(m.layer_types, name)) refuse_layer_type(name, who, m.layer_types);
    return name;
  }
  if (name.empty()) return name;
  // Llama 4's full_attention layers are its NoPE layers (Llama4TextConfig: no_rope_layers).
  if (m.model_type == "llama4_text" && name == "full_attention")
    fail(
        "layer type \"full_attention\": llama4_text's full-attention layers have no rotary "
        "embedding (NoPE); its rotary layers are \"chunked_attention\"");
  std::vector<std::string> known = declared;
  if (m.model_type == "llama4_text" && known.empty()) known = {"chunked_attention"};
  if (!contains(known, name)) refuse_layer_type(name, who, known);
  return name;
}

// The text model's section as read: its fields, the prefix that names them in messages ("" or
// "text_config."), and its config class's defaults.
struct Section {
  const json& fields;
  std::string at;
  const ClassDefaults& defaults;
};

// head_dim, or DeepSeek's qk_rope_head_dim, or the class's, or hidden_size / num_attention_heads.
int head_dim_of(const Section& s) {
  const json& c = s.fields;
  if (find(c, "qk_rope_head_dim"))  // DeepSeek's multi-head latent attention
    return static_cast<int>(count_at(c, "qk_rope_head_dim", s.at));
  if (find(c, "head_dim")) return static_cast<int>(count_at(c, "head_dim", s.at));
  if (s.defaults.head_dim) return s.defaults.head_dim;
  if (find(c, "hidden_size") && find(c, "num_attention_heads")) {
    const uint64_t hidden = count_at(c, "hidden_size", s.at);
    const uint64_t heads = count_at(c, "num_attention_heads", s.at);
    if (heads == 0) fail(s.at + "num_attention_heads must be > 0");
    return static_cast<int>(hidden / heads);
  }
  fail(s.at +
       "head_dim is missing, and there is no hidden_size / num_attention_heads to derive it");
}

// Where the rotary parameters of the layers read are.
struct LayerParams {
  bool keyed = false;            // transformers 5's rope_parameters, keyed by layer type
  bool local = false;            // Gemma 3's sliding layers: rope_local_base_freq, default recipe
  const json* params = nullptr;  // those layers' rope_parameters, if any
  std::string params_at;         // its path, for messages
};

// Sets the layer types whose rotary parameters differ and the one read (`named`, or the
// full-attention layers'), and finds those layers' parameters.
LayerParams layer_params(ModelRope& m, const Section& s, const json* rope_parameters,
                         std::string_view named) {
  const json& c = s.fields;
  LayerParams p;
  // Layer types with rotary parameters of their own: transformers 5's keyed rope_parameters, or
  // Gemma 3's sliding layers on rope_local_base_freq (Gemma3TextModel's rotary_emb_local).
  p.keyed = keyed_by_layer_type(rope_parameters);
  const bool local_base =
      m.model_type.starts_with("gemma3") || find(c, "rope_local_base_freq") != nullptr;
  const bool gemma3 = !p.keyed && local_base;
  if (p.keyed)
    for (const auto& [key, value] : rope_parameters->items()) m.layer_types.push_back(key);
  else if (gemma3)
    m.layer_types = {"full_attention", "sliding_attention"};
  m.layer_type = resolve_layer_type(m, named, string_list(c, "layer_types", s.at));

  p.params = p.keyed ? &rope_parameters->at(m.layer_type) : rope_parameters;
  p.params_at = s.at + (p.keyed ? "rope_parameters." + m.layer_type + "." : "rope_parameters.");
  // Gemma 3's sliding layers: rope_local_base_freq, keyed or not (its convert_rope_params_to_dict).
  p.local = (p.keyed || gemma3) && m.layer_type == "sliding_attention" && local_base;
  return p;
}

// The base of the layers read: their own rope_theta (transformers 5) first, then the section's.
double base_of(const Section& s, const LayerParams& p) {
  const json& c = s.fields;
  const ClassDefaults& defaults = s.defaults;
  if (p.params && find(*p.params, "rope_theta"))
    return number_at(*p.params, "rope_theta", p.params_at);
  if (p.local && find(c, "rope_local_base_freq")) return number_at(c, "rope_local_base_freq", s.at);
  if (!p.local && find(c, "rope_theta")) return number_at(c, "rope_theta", s.at);
  if (!p.local && find(c, "rotary_emb_base"))  // GPT-NeoX
    return number_at(c, "rotary_emb_base", s.at);
  return p.local && defaults.local_base ? defaults.local_base : defaults.rope_theta;
}

// partial_rotary_factor and the rotary dimension it leaves of head_dim.
void read_rotary_dim(ModelRope& m, const Section& s, const LayerParams& p) {
  const json& c = s.fields;
  if (find(c, "partial_rotary_factor"))
    m.partial_rotary_factor = number_at(c, "partial_rotary_factor", s.at);
  else if (p.params && find(*p.params, "partial_rotary_factor"))
    m.partial_rotary_factor = number_at(*p.params, "partial_rotary_factor", p.params_at);
  else if (find(c, "rotary_pct"))  // GPT-NeoX
    m.partial_rotary_factor = number_at(c, "rotary_pct", s.at);
  if (!(m.partial_rotary_factor > 0 && m.partial_rotary_factor <= 1))
    fail(fmt::format("{}partial_rotary_factor must be in (0, 1], got {}", s.at,
                     m.partial_rotary_factor));
  // Hugging Face's int(head_dim * partial_rotary_factor), in double, truncated.
  m.rotary_dim = static_cast<int>(static_cast<double>(m.head_dim) * m.partial_rotary_factor);
  if (find(c, "rotary_dim"))  // GPT-J gives it in full
    m.rotary_dim = static_cast<int>(count_at(c, "rotary_dim", s.at));
  if (m.rotary_dim < 2 || m.rotary_dim % 2 != 0)
    fail(
        fmt::format("the rotary dimension (head_dim {} x partial_rotary_factor {}) is {}: it must "
                    "be even and >= 2",
                    m.head_dim, m.partial_rotary_factor, m.rotary_dim));
}

// Proportional RoPE (Gemma 4) rotates the whole head, its tail with frequency 0: the table is
// head_dim wide and the recipe's partial_rotary_factor says how many pairs turn. Gemma 4's
// full-attention layers pass head_dim_key="global_head_dim" (Gemma4TextRotaryEmbedding), and
// _compute_proportional_rope_parameters reads that key, else hidden_size / num_attention_heads.
void read_proportional_dim(ModelRope& m, const Section& s) {
  const json& c = s.fields;
  if (m.layer_type == "full_attention") {
    if (find(c, "global_head_dim"))
      m.head_dim = static_cast<int>(count_at(c, "global_head_dim", s.at));
    else if (s.defaults.global_head_dim)
      m.head_dim = s.defaults.global_head_dim;
  }
  m.partial_rotary_factor = 1.0;
  m.rotary_dim = m.head_dim;
  if (m.rotary_dim < 2 || m.rotary_dim % 2 != 0)
    fail(fmt::format("{}head_dim {} of proportional RoPE must be even and >= 2", s.at, m.head_dim));
}

// The recipe of the layers read: keyed, each layer type's own; Gemma 3's sliding layers take the
// default recipe (rope_scaling is the global layers'); else rope_scaling, or rope_parameters.
RopeScaling layer_recipe(const ModelRope& m, const Section& s, const LayerParams& p) {
  const json* rs = p.keyed || p.local ? nullptr : find(s.fields, "rope_scaling");
  std::string where = s.at + "rope_scaling.";
  if (!rs && (p.keyed || !p.local) && p.params) {
    rs = p.params;
    where = p.params_at;
  }
  if (!rs) return {};
  if (!rs->is_object()) fail(where.substr(0, where.size() - 1) + " must be an object");
  // Keyed rope_parameters take no top-level original length (standardize_rope_params).
  return read_recipe(*rs, where, p.keyed ? json::object() : s.fields, m.max_position, m.model_type);
}

// The keys one edit from those a rotary config is read by, in the section and in its recipe
// objects (rope_scaling, rope_parameters, and rope_parameters' per-layer-type objects).
std::vector<std::string> near_misses(const json& c, const std::string& at) {
  static const std::vector<std::string> section_keys = {
      "rope_theta",      "rope_scaling",     "rope_parameters",     "partial_rotary_factor",
      "head_dim",        "hidden_size",      "num_attention_heads", "max_position_embeddings",
      "layer_types",     "qk_rope_head_dim", "model_type",          "text_config",
      "rotary_emb_base", "rotary_pct",       "global_head_dim"};
  static const std::vector<std::string> recipe_keys = {
      "rope_type",        "type",
      "factor",           "low_freq_factor",
      "high_freq_factor", "original_max_position_embeddings",
      "beta_fast",        "beta_slow",
      "mscale",           "mscale_all_dim",
      "attention_factor", "truncate",
      "short_factor",     "long_factor",
      "mrope_section",    "mrope_interleaved",
      "rope_theta",       "partial_rotary_factor"};
  // Real keys one edit from a rotary one, which must not be taken for typos (DeepSeek's).
  static const std::vector<std::string> real = {"qk_nope_head_dim"};
  std::vector<std::string> out = near_miss_keys(c, section_keys, at, real);
  const auto add = [&](const json* recipe, const std::string& where) {
    if (!recipe) return;
    for (std::string& w : near_miss_keys(*recipe, recipe_keys, where)) out.push_back(std::move(w));
  };
  add(find(c, "rope_scaling"), at + "rope_scaling.");
  const json* params = find(c, "rope_parameters");
  if (keyed_by_layer_type(params))
    for (const auto& [type, recipe] : params->items())
      add(&recipe, at + "rope_parameters." + type + ".");
  else
    add(params, at + "rope_parameters.");
  return out;
}

}  // namespace

ModelRope model_rope_from_config(std::string_view json_text, std::string_view layer_type) {
  const json top = parse(json_text, "the model config");
  ModelRope m;
  const json& c = text_section(top, m.section);
  m.outer_model_type = string_at(top, "model_type");
  m.model_type = string_at(c, "model_type");
  const Section s{c, m.section.empty() ? "" : m.section + ".", class_defaults(m.model_type)};

  const json* rope_parameters = find(c, "rope_parameters");
  if (rope_parameters && !rope_parameters->is_object())
    fail(s.at + "rope_parameters must be an object");
  m.max_position = s.defaults.max_position;
  if (find(c, "max_position_embeddings"))
    m.max_position = count_at(c, "max_position_embeddings", s.at);
  m.head_dim = head_dim_of(s);
  const LayerParams layers = layer_params(m, s, rope_parameters, layer_type);
  m.base = base_of(s, layers);
  m.rope = layer_recipe(m, s, layers);
  if (m.rope.type == RopeType::kProportional)
    read_proportional_dim(m, s);
  else
    read_rotary_dim(m, s, layers);
  if (!(m.base > 1)) fail(fmt::format("{}rope_theta must be > 1, got {}", s.at, m.base));
  validate_recipe(m.rope, m.rotary_dim, m.section);
  m.warnings = near_misses(c, s.at);
  return m;
}

std::string describe(const ModelRope& m) {
  std::string text;
  if (!m.section.empty())
    text = m.section + (m.outer_model_type.empty() ? "" : " of " + m.outer_model_type);
  if (!m.layer_type.empty()) {
    text += fmt::format("{}layer type {}", text.empty() ? "" : ", ", m.layer_type);
    std::vector<std::string> others;
    for (const std::string& t : m.layer_types)
      if (t != m.layer_type) others.push_back(t);
    if (m.layer_type_chosen)
      text += fmt::format(" (not named: the global layers'; also {})", fmt::join(others, ", "));
  }
  return text;
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

std::vector<std::pair<std::string, TableSpec>> layer_type_specs(const RotaryRequest& q,
                                                                const TableSpec& spec) {
  std::vector<std::pair<std::string, TableSpec>> out;
  for (const ModelRope& m : q.other_layer_types) {
    TableSpec other = spec;
    RotaryRequest r;
    r.model = m;
    try {
      apply_rotary(r, other);
    } catch (const std::exception&) {
      continue;  // a layer type the spec cannot take is no alternative
    }
    if (needs_sequence_length(other.rope)) other.rope.sequence_length = spec.rope.sequence_length;
    out.emplace_back(m.layer_type, other);
  }
  return out;
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

std::string rotary_source(const RotaryRequest& q) {
  if (!q.model) return "";
  const std::string what = describe(*q.model);
  return what.empty() ? q.model_name : q.model_name + ": " + what;
}

}  // namespace pev
