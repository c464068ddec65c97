#include "peverify/encoding/config_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "peverify/encoding/model_config.h"

namespace pev::config_json {

void fail(const std::string& message) { throw ConfigError(message); }

// Plain dump() throws on invalid UTF-8 and passes other bytes through; DEL is escaped too.
std::string shown(const json& v) {
  // An array or object is named by its size: dumping it would recurse once per level of
  // nesting, and a hostile file nests deeper than any stack.
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + " elements";
  if (v.is_object()) return "an object of " + std::to_string(v.size()) + " keys";
  std::string s;
  for (const char c : v.dump(-1, ' ', true, json::error_handler_t::replace))
    s += c == '\x7f' ? std::string("\\u007f") : std::string(1, c);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

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

std::vector<int> count_list(const json& object, const std::string& key, const std::string& where) {
  std::vector<int> out;
  for (const double x : number_list(object, key, where)) {
    // A count of frequency pairs: far below 2^31, so the bound only keeps the cast defined.
    if (!(x >= 0 && x <= 1e6) || x != std::floor(x))
      fail(fmt::format("{}{} must hold counts (integers >= 0), got {}", where, key, x));
    out.push_back(static_cast<int>(x));
  }
  return out;
}

bool bool_at(const json& object, const std::string& key, const std::string& where) {
  const json* v = find(object, key);
  if (!v || !v->is_boolean()) fail(fmt::format("{}{} must be true or false", where, key));
  return v->get<bool>();
}

std::vector<std::string> string_list(const json& object, const std::string& key,
                                     const std::string& where) {
  std::vector<std::string> out;
  const json* v = find(object, key);
  if (!v) return out;
  if (!v->is_array()) fail(fmt::format("{}{} must be a list of names", where, key));
  for (const json& x : *v) {
    if (!x.is_string())
      fail(fmt::format("{}{} must hold names only, got {}", where, key, shown(x)));
    out.push_back(x.get<std::string>());
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

namespace {

// Whether a and b are one edit apart (Damerau: insertion, deletion, substitution, or a swap of
// two neighbouring characters).
bool one_edit_apart(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  if (b.size() - a.size() > 1 || a == b) return false;
  size_t i = 0;
  while (i < a.size() && a[i] == b[i]) ++i;
  if (a.size() < b.size()) return a.substr(i) == b.substr(i + 1);  // one inserted
  if (a.substr(i + 1) == b.substr(i + 1)) return true;             // one substituted
  return i + 1 < a.size() && a[i] == b[i + 1] && a[i + 1] == b[i] &&
         a.substr(i + 2) == b.substr(i + 2);  // two neighbours swapped
}

}  // namespace

std::vector<std::string> near_miss_keys(const json& object, const std::vector<std::string>& known,
                                        const std::string& where,
                                        const std::vector<std::string>& real) {
  std::vector<std::string> warnings;
  if (!object.is_object()) return warnings;
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end() ||
        std::find(real.begin(), real.end(), key) != real.end())
      continue;
    for (const std::string& k : known)
      if (one_edit_apart(key, k)) {
        warnings.push_back(fmt::format(
            "{}{} is not a key transformers reads (it is ignored, as transformers ignores it); "
            "did you mean {}?",
            where, shown(json(key)), k));
        break;
      }
  }
  return warnings;
}

}  // namespace pev::config_json
