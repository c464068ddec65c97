#include "peverify/tables/number_array.h"

#include <cmath>
#include <cstring>

#include "peverify/encoding/format.h"
#include "peverify/tables/npy_reader.h"

namespace pev {
namespace {

struct ElementType {
  char kind = 0;  // 'i', 'u', 'f', 'V' (bfloat16 patterns)
  int bytes = 0;
  bool big_endian = false;
  std::string name;
};

ElementType element_type(const ByteSource& src, const std::string& descr) {
  const char order = descr.empty() ? '\0' : descr[0];
  const std::string type = descr.size() > 1 ? descr.substr(1) : "";
  ElementType t;
  if (type.size() == 2 && std::strchr("iuf", type[0]) && std::strchr("1248", type[1])) {
    t.kind = type[0];
    t.bytes = type[1] - '0';
  } else if (type == "V2") {
    t.kind = 'V';
    t.bytes = 2;
  }
  if (t.kind == 'f' && t.bytes == 1) t.bytes = 0;
  if (t.bytes == 0 || !(order == '<' || order == '>' || order == '|' || order == '='))
    src.fail(
        "expected numbers (int8 .. int64, uint8 .. uint64, float16, float32, float64 or "
        "bfloat16), found descr '" +
        printable(descr, 20) + "'");
  t.big_endian = order == '>' && t.bytes > 1;
  t.name = t.kind == 'V' ? "bfloat16"
           : t.kind == 'f'
               ? "float" + std::to_string(8 * t.bytes)
               : std::string(t.kind == 'u' ? "uint" : "int") + std::to_string(8 * t.bytes);
  return t;
}

// The stored bits, sign-extended for a signed integer.
uint64_t raw_of(const ElementType& t, const unsigned char* at) {
  uint64_t v = 0;
  for (int b = 0; b < t.bytes; ++b)
    v |= uint64_t{at[t.big_endian ? t.bytes - 1 - b : b]} << (8 * b);
  if (t.kind == 'i' && t.bytes < 8 && (v >> (8 * t.bytes - 1)) & 1)
    v |= ~uint64_t{0} << (8 * t.bytes);
  return v;
}

double value_of(const ElementType& t, const unsigned char* at) {
  const uint64_t v = raw_of(t, at);
  switch (t.kind) {
    case 'V':
      return decode(v, Dtype::kBFloat16);
    case 'f':
      return decode(v, t.bytes == 8   ? Dtype::kFloat64
                       : t.bytes == 4 ? Dtype::kFloat32
                                      : Dtype::kFloat16);
    case 'i':
      return static_cast<double>(static_cast<int64_t>(v));  // exactness checked by the caller
    default:
      return static_cast<double>(v);
  }
}

// Whether an integer survived its conversion to double: every one up to 2^53 does.
bool exact_integer(const ElementType& t, const unsigned char* at) {
  constexpr uint64_t kLimit = uint64_t{1} << 53;
  const uint64_t v = raw_of(t, at);
  if (t.kind == 'u') return v <= kLimit;
  if (t.kind != 'i') return true;
  const int64_t i = static_cast<int64_t>(v);
  return i >= -static_cast<int64_t>(kLimit) && i <= static_cast<int64_t>(kLimit);
}

}  // namespace

NumberArray read_number_array(const ByteSource& src) {
  const NpyRawHeader h = npy_raw_header(src);
  const ElementType type = element_type(src, h.descr);
  if (h.shape.empty() || h.shape.size() > 4)
    src.fail("expected an array of 1 to 4 dimensions, found shape " + shape_string(h.shape));
  uint64_t count = 1;
  for (const uint64_t d : h.shape) {
    const auto m = checked_mul(count, d);
    if (!m || *m > (uint64_t{1} << 34))
      src.fail("shape " + shape_string(h.shape) + " is too large");
    count = *m;
  }
  if (count == 0) src.fail("the array is empty: shape " + shape_string(h.shape));
  const uint64_t need = count * static_cast<uint64_t>(type.bytes);
  const uint64_t have = src.size() - h.data_offset;
  if (need > have)
    src.fail("truncated: shape " + shape_string(h.shape) + " of '" + h.descr + "' needs " +
             std::to_string(need) + " bytes of data, the file holds " + std::to_string(have));
  if (need < have) src.fail(std::to_string(have - need) + " bytes follow the array");
  std::vector<unsigned char> bytes(need);
  src.read(h.data_offset, need, bytes.data());
  NumberArray a;
  a.shape = h.shape;
  a.type = type.name;
  a.values.resize(count);
  // Fortran order stores the transpose: element i of the file is C-order element `c`.
  std::vector<uint64_t> stride(h.shape.size(), 1);
  for (size_t d = h.shape.size() - 1; d > 0; --d) stride[d - 1] = stride[d] * h.shape[d];
  for (uint64_t i = 0; i < count; ++i) {
    const unsigned char* at = bytes.data() + i * type.bytes;
    uint64_t c = i;
    if (h.fortran_order) {
      c = 0;
      uint64_t rest = i;
      for (size_t d = 0; d < h.shape.size(); ++d) {
        c += (rest % h.shape[d]) * stride[d];
        rest /= h.shape[d];
      }
    }
    const double v = value_of(type, at);
    if (!std::isfinite(v)) src.fail("element " + std::to_string(c) + " is not finite");
    if (!exact_integer(type, at))
      src.fail("element " + std::to_string(c) + " is beyond 2^53 in magnitude");
    a.values[c] = v;
  }
  return a;
}

NumberArray read_number_array(const std::string& path) {
  const FileSource src(path);
  return read_number_array(src);
}

}  // namespace pev
