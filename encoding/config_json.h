// Reading a user's JSON config (config.json, --rope-scaling): each accessor throws a ConfigError of
// one line that names the field, `where` being the field's path so far
// ("text_config.rope_scaling.").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pev::config_json {

using nlohmann::json;

[[noreturn]] void fail(const std::string& message);

// A user's value in a one-line message: ASCII, escaped, cut short.
std::string shown(const json& v);

// The key's value when present and not null.
const json* find(const json& object, const std::string& key);

double number_at(const json& object, const std::string& key, const std::string& where);
std::optional<double> optional_number(const json& object, const std::string& key,
                                      const std::string& where);
// A count (head_dim, max_position_embeddings, ...): a non-negative integer.
uint64_t count_at(const json& object, const std::string& key, const std::string& where);
std::vector<double> number_list(const json& object, const std::string& key,
                                const std::string& where);
std::vector<int> count_list(const json& object, const std::string& key, const std::string& where);
bool bool_at(const json& object, const std::string& key, const std::string& where);
// A list of strings (layer_types); empty when absent.
std::vector<std::string> string_list(const json& object, const std::string& key,
                                     const std::string& where);

// The keys of `object` one edit (an insertion, deletion, substitution or swap of neighbours) from
// a key of `known` and not in it themselves, each as a warning naming the likely key: a typo
// transformers would ignore silently (`rope_thetaa`). `where` prefixes the key; `real` lists
// keys near a known one that are real all the same (DeepSeek's qk_nope_head_dim).
std::vector<std::string> near_miss_keys(const json& object, const std::vector<std::string>& known,
                                        const std::string& where,
                                        const std::vector<std::string>& real = {});

// The text as a JSON object; `what` names it in the message.
json parse(std::string_view text, const char* what);

}  // namespace pev::config_json
