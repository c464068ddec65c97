#include "peverify/tables/safetensors_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/tables/stored_type.h"

namespace pev {
namespace {

using nlohmann::json;

// The reference implementation (huggingface/safetensors) refuses larger headers too.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// Top object > tensor object > shape array > dimension: nothing legitimate nests deeper.
constexpr int kMaxDepth = 3;
// Arrays are shapes and offset pairs: no tensor has 64 dimensions.
constexpr size_t kMaxArrayLength = 64;

struct Entry {
  const std::string* name;  // keys and values of the parsed header, which outlives the entries
  const json* tensor;
  uint64_t begin, end;
};

std::string quoted(const std::string& name) {
  std::string q = "'";
  q += printable(name, 40);
  return q += "'";
}

// A header rejected while parsing (duplicate key, nesting too deep).
struct Rejected {
  std::string why;
};

// An open object or array while the header is parsed.
struct Open {
  bool is_array = false;
  size_t elements = 0;         // arrays
  std::set<std::string> keys;  // objects
};

// nlohmann-json keeps the last of duplicate keys silently; a hostile file could then show one
// tensor to a checker and another to a loader, so duplicates are refused at every level. Long
// arrays and deep nesting are refused while parsing, before they cost memory.
json parse_header(const ByteSource& src, const std::string& text) {
  std::vector<Open> open;
  const json::parser_callback_t check = [&open](int depth, json::parse_event_t event,
                                                json& parsed) {
    using E = json::parse_event_t;
    if (depth > kMaxDepth) throw Rejected{"the header nests deeper than a safetensors header"};
    const bool element = event == E::value || event == E::object_start || event == E::array_start;
    if (element && !open.empty() && open.back().is_array &&
        ++open.back().elements > kMaxArrayLength)
      throw Rejected{"an array in the header has more than " + std::to_string(kMaxArrayLength) +
                     " elements"};
    if (event == E::object_start || event == E::array_start) {
      open.emplace_back().is_array = event == E::array_start;
    } else if (event == E::object_end || event == E::array_end) {
      if (!open.empty()) open.pop_back();
    } else if (event == E::key && !open.empty()) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!open.back().keys.insert(key).second)
        throw Rejected{"the key " + quoted(key) + " appears twice"};
    }
    return true;
  };
  try {
    return json::parse(text, check);
  } catch (const Rejected& r) {
    src.fail("malformed safetensors header: " + r.why);
  } catch (const json::exception& e) {
    std::string why = e.what();
    why.erase(0, why.find("] ") == std::string::npos ? 0 : why.find("] ") + 2);
    src.fail("the safetensors header is not valid JSON: " + printable(why, 160));
  }
}

// A non-negative integer, or nullopt.
std::optional<uint64_t> unsigned_of(const json& v) {
  if (!v.is_number_unsigned()) return std::nullopt;
  return v.get<uint64_t>();
}

std::vector<uint64_t> shape_of(const ByteSource& src, const std::string& name, const json& t) {
  const auto it = t.find("shape");
  if (it == t.end() || !it->is_array())
    src.fail("tensor " + quoted(name) + ": 'shape' is missing or not an array");
  std::vector<uint64_t> shape;
  for (const json& d : *it) {
    const auto v = unsigned_of(d);
    if (!v) src.fail("tensor " + quoted(name) + ": a dimension is not a non-negative integer");
    shape.push_back(*v);
  }
  return shape;
}

std::string names_list(const std::vector<Entry>& entries) {
  std::vector<std::string> names;
  for (size_t i = 0; i < entries.size() && i < 5; ++i) names.push_back(quoted(*entries[i].name));
  if (entries.size() > 5) names.emplace_back("...");
  return fmt::format("{}", fmt::join(names, ", "));
}

// The header's length, from the file's first 8 bytes.
uint64_t header_length(const ByteSource& src) {
  const uint64_t size = src.size();
  if (size < 8) src.fail("too short for a .safetensors file (" + std::to_string(size) + " bytes)");
  unsigned char len_bytes[8];
  src.read(0, 8, len_bytes);
  return little_endian(len_bytes, 8);
}

// Every tensor of the header (the top-level keys but "__metadata__"), each with data_offsets
// that lie inside the `data_size` bytes of data.
std::vector<Entry> tensor_entries(const ByteSource& src, const json& header, uint64_t data_size) {
  std::vector<Entry> entries;
  for (const auto& [name, t] : header.get_ref<const json::object_t&>()) {
    if (name == "__metadata__") continue;
    if (!t.is_object()) src.fail("tensor " + quoted(name) + " is not a JSON object");
    const auto off = t.find("data_offsets");
    if (off == t.end() || !off->is_array() || off->size() != 2 || !unsigned_of((*off)[0]) ||
        !unsigned_of((*off)[1]))
      src.fail("tensor " + quoted(name) +
               ": 'data_offsets' is not a pair of non-negative integers");
    const uint64_t begin = *unsigned_of((*off)[0]), end = *unsigned_of((*off)[1]);
    if (begin > end || end > data_size)
      src.fail("tensor " + quoted(name) + ": data_offsets [" + std::to_string(begin) + ", " +
               std::to_string(end) + "] lie outside the " + std::to_string(data_size) +
               " bytes of data");
    entries.push_back({&name, &t, begin, end});
  }
  return entries;
}

// Every tensor's range is checked, not only the one read: overlapping tensors mean a corrupt or
// crafted file.
void refuse_overlaps(const ByteSource& src, std::vector<Entry> by_offset) {
  std::sort(by_offset.begin(), by_offset.end(),
            [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  const Entry* reach = nullptr;  // the range seen so far that ends last
  for (const Entry& e : by_offset) {
    if (e.begin == e.end) continue;
    if (reach && e.begin < reach->end)
      src.fail("tensors " + quoted(*reach->name) + " and " + quoted(*e.name) + " overlap");
    if (!reach || e.end > reach->end) reach = &e;
  }
}

// The tensor --tensor names, else the file's only one.
const Entry& chosen_entry(const ByteSource& src, const std::vector<Entry>& entries,
                          const std::optional<std::string>& wanted) {
  if (wanted) {
    const Entry* chosen = nullptr;
    for (const Entry& e : entries)
      if (*e.name == *wanted) chosen = &e;
    if (!chosen)
      src.fail(
          "no tensor named " + quoted(*wanted) +
          (entries.empty() ? " (the file holds none)" : " (it holds " + names_list(entries) + ")"));
    return *chosen;
  }
  if (entries.empty()) src.fail("the file holds no tensors");
  if (entries.size() > 1)
    src.fail("the file holds " + std::to_string(entries.size()) + " tensors (" +
             names_list(entries) + "): choose one with --tensor NAME");
  return entries[0];
}

// How a tensor's elements are read: its dtype, by the readers' one rule (tables/stored_type.h).
struct TensorType {
  const std::string* dtype_name;  // as the header gives it
  const StoredType* stored;
  Dtype dtype;  // each value's, as read
};

TensorType tensor_type(const ByteSource& src, const Entry& tensor,
                       const std::optional<Dtype>& requested) {
  const std::string& name = *tensor.name;
  const json& t = *tensor.tensor;
  const auto dt = t.find("dtype");
  if (dt == t.end() || !dt->is_string())
    src.fail("tensor " + quoted(name) + ": 'dtype' is missing or not a string");
  const std::string& dtype_name = dt->get_ref<const std::string&>();
  const StoredType* stored = find_stored_type(&StoredType::safetensors, dtype_name);
  if (!stored) {
    const ReadableNames names =
        readable_names(&StoredType::safetensors, [](std::string_view n) { return std::string(n); });
    src.fail("tensor " + quoted(name) + " has dtype '" + printable(dtype_name, 20) +
             "' (peverify reads " + names.floats + ", and " + names.patterns +
             " with --dtype bfloat16)");
  }
  const DtypeChoice choice = choose_dtype(*stored, requested);
  switch (choice.problem) {
    case DtypeProblem::kNone:
      break;
    case DtypeProblem::kMismatch:
      src.fail("--dtype " + std::string(name_of(*requested)) + " does not match tensor " +
               quoted(name) + "'s dtype " + dtype_name);
    case DtypeProblem::kNotPatternType:
    case DtypeProblem::kNeedsDtype:
      src.fail("tensor " + quoted(name) + " holds " + dtype_name +
               " data; if these are bfloat16 bit patterns, read them with --dtype bfloat16");
  }
  return {&dtype_name, stored, choice.dtype};
}

// The tensor's shape as rows and width, its bytes checked against its data_offsets.
struct TensorShape {
  std::vector<uint64_t> dims;  // as the header gives them
  uint64_t rows, width;
};

TensorShape tensor_shape(const ByteSource& src, const Entry& tensor, const TensorType& type,
                         bool any_rank) {
  const std::string& name = *tensor.name;
  const std::vector<uint64_t> s = shape_of(src, name, *tensor.tensor);
  const auto shape = rows_and_width(s, any_rank);
  if (!shape)
    src.fail("tensor " + quoted(name) + ": " + std::string(expected_shape(any_rank)) + ", found " +
             shape_string(s));
  const auto [rows, width] = *shape;
  if (rows == 0 || width == 0)
    src.fail("tensor " + quoted(name) + " is empty (shape " + shape_string(s) + ")");
  const auto count = checked_mul(rows, width);
  const auto bytes =
      count ? checked_mul(*count, type.stored->element_bytes(type.dtype)) : std::nullopt;
  const uint64_t have = tensor.end - tensor.begin;
  if (!bytes || *bytes != have)
    src.fail("tensor " + quoted(name) + ": shape " + shape_string(s) + " of " + *type.dtype_name +
             " needs " + (bytes ? std::to_string(*bytes) : "over 2^64") +
             " bytes, its data_offsets span " + std::to_string(have));
  return {s, rows, width};
}

}  // namespace

TableHeader safetensors_header(const ByteSource& src, const ReadOptions& opts) {
  const uint64_t header_len = header_length(src);
  const json header = parse_header(src, read_header_text(src, 8, header_len, kMaxHeaderBytes));
  if (!header.is_object()) src.fail("the safetensors header is not a JSON object");
  const uint64_t data_start = 8 + header_len;
  const std::vector<Entry> entries = tensor_entries(src, header, src.size() - data_start);
  refuse_overlaps(src, entries);
  const Entry& chosen = chosen_entry(src, entries, opts.tensor);
  const TensorType type = tensor_type(src, chosen, opts.dtype);
  const TensorShape shape = tensor_shape(src, chosen, type, opts.any_rank);

  std::string description = "safetensors " + quoted(*chosen.name) + " " + *type.dtype_name;
  if (type.stored->bit_patterns()) description += " as " + std::string(name_of(type.dtype));
  description += ' ';
  description += shape_string(shape.dims);
  ElementLayout layout;
  layout.offset = data_start + chosen.begin;
  layout.dtype = type.dtype;
  layout.rows = shape.rows;
  layout.width = type.stored->parts() * shape.width;  // real and imaginary parts, side by side
  return {layout, shape.dims, std::move(description), type.stored->complex};
}

LoadedTable read_safetensors(const ByteSource& src, const ReadOptions& opts) {
  return load_table(src, safetensors_header(src, opts));
}

}  // namespace pev
