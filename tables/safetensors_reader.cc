#include "peverify/tables/safetensors_reader.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "peverify/encoding/format.h"

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
  std::string s;
  for (size_t i = 0; i < entries.size() && i < 5; ++i)
    s += (i ? ", " : "") + quoted(*entries[i].name);
  return entries.size() > 5 ? s + ", ..." : s;
}

}  // namespace

TableHeader safetensors_header(const ByteSource& src, const ReadOptions& opts) {
  const uint64_t size = src.size();
  if (size < 8) src.fail("too short for a .safetensors file (" + std::to_string(size) + " bytes)");
  unsigned char len_bytes[8];
  src.read(0, 8, len_bytes);
  uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) header_len |= uint64_t{len_bytes[i]} << (8 * i);
  if (header_len > size - 8)
    src.fail("the header length (" + std::to_string(header_len) +
             " bytes) runs past the end of the file (" + std::to_string(size) + " bytes)");
  if (header_len > kMaxHeaderBytes)
    src.fail("the header is too large (" + std::to_string(header_len) + " bytes)");
  std::string text(header_len, '\0');
  src.read(8, header_len, reinterpret_cast<unsigned char*>(text.data()));
  const json header = parse_header(src, text);
  if (!header.is_object()) src.fail("the safetensors header is not a JSON object");

  // Every tensor's range is checked, not only the one read: overlapping tensors mean a corrupt
  // or crafted file.
  const uint64_t data_start = 8 + header_len, data_size = size - data_start;
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
  std::vector<Entry> by_offset = entries;
  std::sort(by_offset.begin(), by_offset.end(),
            [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  const Entry* reach = nullptr;  // the range seen so far that ends last
  for (const Entry& e : by_offset) {
    if (e.begin == e.end) continue;
    if (reach && e.begin < reach->end)
      src.fail("tensors " + quoted(*reach->name) + " and " + quoted(*e.name) + " overlap");
    if (!reach || e.end > reach->end) reach = &e;
  }

  const Entry* chosen = nullptr;
  if (opts.tensor) {
    for (const Entry& e : entries)
      if (*e.name == *opts.tensor) chosen = &e;
    if (!chosen)
      src.fail(
          "no tensor named " + quoted(*opts.tensor) +
          (entries.empty() ? " (the file holds none)" : " (it holds " + names_list(entries) + ")"));
  } else if (entries.empty()) {
    src.fail("the file holds no tensors");
  } else if (entries.size() > 1) {
    src.fail("the file holds " + std::to_string(entries.size()) + " tensors (" +
             names_list(entries) + "): choose one with --tensor NAME");
  } else {
    chosen = &entries[0];
  }
  const std::string& name = *chosen->name;
  const json& t = *chosen->tensor;

  const auto dt = t.find("dtype");
  if (dt == t.end() || !dt->is_string())
    src.fail("tensor " + quoted(name) + ": 'dtype' is missing or not a string");
  const std::string& dtype_name = dt->get_ref<const std::string&>();
  static const std::map<std::string, Dtype> kNatural = {{"F64", Dtype::kFloat64},
                                                        {"F32", Dtype::kFloat32},
                                                        {"F16", Dtype::kFloat16},
                                                        {"BF16", Dtype::kBFloat16},
                                                        {"C64", Dtype::kFloat32}};
  const bool complex = dtype_name == "C64";  // two float32 each: real, imaginary
  Dtype dtype = Dtype::kFloat32;
  const bool opaque = dtype_name == "U16" || dtype_name == "I16";
  if (const auto it = kNatural.find(dtype_name); it != kNatural.end()) {
    if (opts.dtype && *opts.dtype != it->second)
      src.fail("--dtype " + std::string(name_of(*opts.dtype)) + " does not match tensor " +
               quoted(name) + "'s dtype " + dtype_name);
    dtype = it->second;
  } else if (opaque && opts.dtype &&
             (*opts.dtype == Dtype::kBFloat16 || *opts.dtype == Dtype::kFloat16)) {
    dtype = *opts.dtype;
  } else if (opaque) {
    src.fail("tensor " + quoted(name) + " holds " + dtype_name +
             " data; if these are bfloat16 bit patterns, read them with --dtype bfloat16");
  } else {
    src.fail("tensor " + quoted(name) + " has dtype '" + printable(dtype_name, 20) +
             "' (peverify reads F64, F32, F16, BF16, C64, and U16 or I16 with --dtype bfloat16)");
  }

  const std::vector<uint64_t> s = shape_of(src, name, t);
  const auto shape = rows_and_width(s, opts.any_rank);
  if (!shape)
    src.fail("tensor " + quoted(name) +
             (opts.any_rank
                  ? ": expected a tensor of rank >= 1, found "
                  : ": expected shape [N, d] (extra dimensions of size 1 allowed), found ") +
             shape_string(s));
  const auto [rows, width] = *shape;
  if (rows == 0 || width == 0)
    src.fail("tensor " + quoted(name) + " is empty (shape " + shape_string(s) + ")");
  const int itemsize = traits_of(dtype).storage_bits / 8 * (complex ? 2 : 1);
  const auto count = checked_mul(rows, width);
  const auto bytes = count ? checked_mul(*count, itemsize) : std::nullopt;
  const uint64_t have = chosen->end - chosen->begin;
  if (!bytes || *bytes != have)
    src.fail("tensor " + quoted(name) + ": shape " + shape_string(s) + " of " + dtype_name +
             " needs " + (bytes ? std::to_string(*bytes) : "over 2^64") +
             " bytes, its data_offsets span " + std::to_string(have));

  std::string description = "safetensors " + quoted(name) + " " + dtype_name;
  if (opaque) description += " as " + std::string(name_of(dtype));
  description += ' ';
  description += shape_string(s);
  ElementLayout layout;
  layout.offset = data_start + chosen->begin;
  layout.dtype = dtype;
  layout.rows = rows;
  layout.width = complex ? 2 * width : width;
  return {layout, s, std::move(description), complex};
}

LoadedTable read_safetensors(const ByteSource& src, const ReadOptions& opts) {
  TableHeader h = safetensors_header(src, opts);
  LoadedTable t = load_elements(src, h.layout, std::move(h.description));
  t.complex = h.complex;
  return t;
}

}  // namespace pev
