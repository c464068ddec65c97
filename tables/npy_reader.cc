#include "peverify/tables/npy_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/format.h"

namespace pev {
namespace {

// Real headers are under 200 bytes; NumPy itself refuses more than 10000 by default.
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;
constexpr size_t kMaxDims = 64;

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<uint64_t> shape;
};

// A malformed header; read_npy adds the file name.
struct HeaderError {
  std::string what;
};

// The header is a Python dict literal with exactly the keys 'descr' (a str), 'fortran_order'
// (True or False) and 'shape' (a tuple of non-negative ints), as NumPy writes it.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, bool allow_long_suffix)
      : s_(text), allow_long_suffix_(allow_long_suffix) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    skip_space();
    expect('{', "the header must start with '{'");
    skip_space();
    while (!at('}')) {
      const std::string key = parse_string("a quoted key");
      skip_space();
      expect(':', "expected ':' after the key '" + printable(key, 40) + "'");
      skip_space();
      if (key == "descr") {
        once(seen_descr, key);
        if (at('[')) fail("structured dtypes (descr is a list) are not supported");
        h.descr = parse_string("a quoted descr such as '<f4'");
      } else if (key == "fortran_order") {
        once(seen_order, key);
        h.fortran_order = parse_bool();
      } else if (key == "shape") {
        once(seen_shape, key);
        h.shape = parse_shape();
      } else {
        fail("unexpected key '" + printable(key, 40) + "'");
      }
      skip_space();
      if (at(',')) {
        ++pos_;
        skip_space();
      } else if (!at('}')) {
        fail("expected ',' or '}' after the value of '" + printable(key, 40) + "'");
      }
    }
    ++pos_;
    skip_space();
    if (pos_ != s_.size()) fail("unexpected characters after the closing '}'");
    if (!seen_descr) fail("the key 'descr' is missing");
    if (!seen_order) fail("the key 'fortran_order' is missing");
    if (!seen_shape) fail("the key 'shape' is missing");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw HeaderError{why + " (at header byte " + std::to_string(pos_) + ")"};
  }
  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  void expect(char c, const std::string& why) {
    if (!at(c)) fail(why);
    ++pos_;
  }
  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void once(bool& seen, const std::string& key) {
    if (seen) fail("the key '" + key + "' appears twice");
    seen = true;
  }
  static bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }

  std::string parse_string(const std::string& what) {
    if (!at('\'') && !at('"')) fail("expected " + what);
    const char quote = s_[pos_++];
    const size_t begin = pos_;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      if (s_[pos_] == '\\') fail("escape sequences in strings are not supported");
      if (s_[pos_] == '\n' || s_[pos_] == '\r') fail("unterminated string");
      ++pos_;
    }
    if (pos_ == s_.size()) fail("unterminated string");
    return std::string(s_.substr(begin, pos_++ - begin));
  }

  bool parse_bool() {
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const size_t n = std::strlen(word);
      if (s_.substr(pos_, n) == word && (pos_ + n == s_.size() || !is_word_char(s_[pos_ + n]))) {
        pos_ += n;
        return value;
      }
    }
    fail("'fortran_order' must be True or False");
  }

  std::vector<uint64_t> parse_shape() {
    if (at('[')) fail("'shape' must be a tuple, not a list");
    expect('(', "'shape' must be a tuple such as (4096, 512)");
    std::vector<uint64_t> dims;
    bool trailing_comma = false;
    skip_space();
    while (!at(')')) {
      if (dims.size() == kMaxDims) fail("'shape' has too many dimensions");
      dims.push_back(parse_dim());
      skip_space();
      trailing_comma = at(',');
      if (trailing_comma) {
        ++pos_;
        skip_space();
      } else if (!at(')')) {
        fail("expected ',' or ')' in 'shape'");
      }
    }
    ++pos_;
    // "(5)" is the int 5 in Python, not a tuple.
    if (dims.size() == 1 && !trailing_comma) fail("'shape' must be a tuple, not an int");
    return dims;
  }

  uint64_t parse_dim() {
    if (at('-') || at('+')) fail("a dimension must be a non-negative integer literal");
    if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') fail("expected a dimension");
    const size_t begin = pos_;
    uint64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      const auto next = checked_mul(v, 10);
      const uint64_t digit = static_cast<uint64_t>(s_[pos_] - '0');
      if (!next || *next > UINT64_MAX - digit) fail("a dimension does not fit in 64 bits");
      v = *next + digit;
      ++pos_;
    }
    if (s_[begin] == '0' && pos_ - begin > 1) fail("a dimension has leading zeros");
    // Python 2 wrote longs as 5L; NumPy still accepts them in version 1.0 headers.
    if (allow_long_suffix_ && at('L')) ++pos_;
    if (pos_ < s_.size() && is_word_char(s_[pos_])) fail("a dimension must be an integer literal");
    return v;
  }

  std::string_view s_;
  bool allow_long_suffix_;
  size_t pos_ = 0;
};

// How the elements of a descr are stored.
struct ElementType {
  Dtype dtype;
  int itemsize;
  bool big_endian;
  bool reinterpreted;    // 16-bit patterns that are not a NumPy float type
  bool complex = false;  // each element two of dtype: real, imaginary
};

ElementType resolve_type(const ByteSource& src, const std::string& descr, const ReadOptions& opts) {
  std::string quoted = "'";
  quoted += printable(descr, 20);
  quoted += "'";
  const char order = descr.empty() ? '\0' : descr[0];
  const std::string_view type = descr.size() > 1 ? std::string_view(descr).substr(1) : "";
  struct Known {
    std::string_view type;
    std::optional<Dtype> natural;  // a float type, else 16-bit patterns read as --dtype says
    std::string_view opaque;       // what those patterns are, for messages
  };
  static constexpr Known kKnown[] = {
      {"f8", Dtype::kFloat64, ""},   {"f4", Dtype::kFloat32, ""},
      {"f2", Dtype::kFloat16, ""},   {"u2", std::nullopt, "uint16"},
      {"i2", std::nullopt, "int16"}, {"V2", std::nullopt, "2-byte void"},
      {"c8", Dtype::kFloat32, ""},   {"c16", Dtype::kFloat64, ""}};
  std::optional<Dtype> natural;
  std::string opaque;
  for (const Known& k : kKnown) {
    if (k.type == type) {
      natural = k.natural;
      opaque = k.opaque;
    }
  }
  if ((!natural && opaque.empty()) || (order != '<' && order != '>' && order != '|'))
    src.fail("unsupported dtype " + quoted +
             " (peverify reads '<f8', '<f4', '<f2', '<c8', '<c16', and '<u2', '<i2' or '<V2' bit "
             "patterns)");
  if (order == '|' && type != "V2")
    src.fail("dtype " + quoted + " has no byte order ('|'), which a multi-byte type needs");
  ElementType t{Dtype::kFloat32, 0, order == '>', !natural};
  if (natural) {
    if (opts.dtype && *opts.dtype != *natural)
      src.fail("--dtype " + std::string(name_of(*opts.dtype)) + " does not match the file's " +
               std::string(name_of(*natural)) + " data (" + quoted + ")");
    t.dtype = *natural;
  } else if (opts.dtype) {
    if (*opts.dtype != Dtype::kBFloat16 && *opts.dtype != Dtype::kFloat16)
      src.fail("the file holds 16-bit " + opaque + " data (" + quoted + "), which --dtype " +
               std::string(name_of(*opts.dtype)) + " cannot read: use --dtype bfloat16 or float16");
    t.dtype = *opts.dtype;
  } else if (type == "V2") {
    t.dtype = Dtype::kBFloat16;  // NumPy saves ml_dtypes' bfloat16 as a 2-byte void.
  } else {
    src.fail("the file holds " + opaque + " data (" + quoted +
             "); if these are bfloat16 bit patterns, read them with --dtype bfloat16");
  }
  t.complex = type == "c8" || type == "c16";
  t.itemsize = traits_of(t.dtype).storage_bits / 8 * (t.complex ? 2 : 1);
  return t;
}

uint64_t read_le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

}  // namespace

NpyRawHeader npy_raw_header(const ByteSource& src) {
  const uint64_t size = src.size();
  unsigned char pre[12] = {};
  src.read(0, std::min<uint64_t>(size, sizeof pre), pre);
  if (size < 6 || std::memcmp(pre, "\x93NUMPY", 6) != 0)
    src.fail("not a .npy file (it does not start with \\x93NUMPY)");
  if (size < 10) src.fail("truncated .npy file (" + std::to_string(size) + " bytes)");
  const int major = pre[6], minor = pre[7];
  if (major < 1 || major > 3 || minor != 0)
    src.fail("unsupported .npy format version " + std::to_string(major) + "." +
             std::to_string(minor) + " (peverify reads 1.0, 2.0 and 3.0)");
  // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 in 4.
  const uint64_t prefix = major == 1 ? 10 : 12;
  if (size < prefix) src.fail("truncated .npy file (" + std::to_string(size) + " bytes)");
  const uint64_t header_len = read_le(pre + 8, major == 1 ? 2 : 4);
  if (header_len > size - prefix)
    src.fail("the header length (" + std::to_string(header_len) +
             " bytes) runs past the end of the file (" + std::to_string(size) + " bytes)");
  if (header_len > kMaxHeaderBytes)
    src.fail("the header is too large (" + std::to_string(header_len) + " bytes)");

  std::string text(header_len, '\0');
  src.read(prefix, header_len, reinterpret_cast<unsigned char*>(text.data()));
  // Every header NumPy writes for a float array is ASCII (3.0 allows UTF-8 only in the field
  // names of structured dtypes, which are not tables).
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t'))
      src.fail("the header holds a " + std::string(c >= 0x80 ? "non-ASCII" : "control") + " byte " +
               printable(text.substr(i, 1)) + " at header byte " + std::to_string(i));
  }
  NpyRawHeader h;
  try {
    const NpyHeader parsed = HeaderParser(text, major == 1).parse();
    h.descr = parsed.descr;
    h.fortran_order = parsed.fortran_order;
    h.shape = parsed.shape;
  } catch (const HeaderError& e) {
    src.fail("malformed .npy header: " + e.what);
  }
  h.data_offset = prefix + header_len;
  return h;
}

TableHeader npy_header(const ByteSource& src, const ReadOptions& opts) {
  const NpyRawHeader h = npy_raw_header(src);
  const uint64_t size = src.size();

  const ElementType type = resolve_type(src, h.descr, opts);
  const std::vector<uint64_t>& s = h.shape;
  const auto shape = rows_and_width(s, opts.any_rank);
  if (!shape)
    src.fail((opts.any_rank
                  ? "expected a tensor of rank >= 1, found "
                  : "expected shape [N, d] (extra dimensions of size 1 allowed), found ") +
             shape_string(s));
  const auto [rows, width] = *shape;
  if (type.complex && h.fortran_order)
    src.fail("a complex table in Fortran order is not supported: save it in C order");
  if (rows == 0 || width == 0) src.fail("the table is empty (shape " + shape_string(s) + ")");
  const auto count = checked_mul(rows, width);
  const auto bytes = count ? checked_mul(*count, type.itemsize) : std::nullopt;
  const uint64_t need = bytes.value_or(UINT64_MAX);
  const uint64_t have = size - h.data_offset;
  const std::string what = "shape " + shape_string(s) + " of '" + h.descr + "'";
  if (!bytes || need > have)
    src.fail("truncated: " + what + " needs " + (bytes ? std::to_string(need) : "over 2^64") +
             " bytes of data, the file holds " + std::to_string(have));
  if (need < have)
    src.fail(std::to_string(have - need) + " bytes follow the data that " + what + " needs");

  std::string description = "npy " + h.descr;
  if (type.reinterpreted) description += " as " + std::string(name_of(type.dtype));
  description += ' ';
  description += shape_string(s);
  if (h.fortran_order) description += " fortran_order";
  ElementLayout layout;
  layout.offset = h.data_offset;
  layout.dtype = type.dtype;
  layout.big_endian = type.big_endian;
  layout.column_major = h.fortran_order;
  layout.rows = rows;
  layout.width = type.complex ? 2 * width : width;  // real and imaginary parts, side by side
  return {layout, s, std::move(description), type.complex};
}

LoadedTable read_npy(const ByteSource& src, const ReadOptions& opts) {
  TableHeader h = npy_header(src, opts);
  LoadedTable t = load_elements(src, h.layout, std::move(h.description));
  t.complex = h.complex;
  return t;
}

}  // namespace pev
