#include "peverify/tables/position_ids.h"

#include <algorithm>
#include <cstring>

#include "peverify/tables/npy_reader.h"

namespace pev {
namespace {

struct IntegerType {
  int bytes = 0;
  bool is_signed = false;
  bool big_endian = false;
};

IntegerType integer_type(const ByteSource& src, const std::string& descr) {
  const char order = descr.empty() ? '\0' : descr[0];
  const std::string type = descr.size() > 1 ? descr.substr(1) : "";
  IntegerType t;
  if (type.size() == 2 && (type[0] == 'i' || type[0] == 'u') && std::strchr("1248", type[1])) {
    t.is_signed = type[0] == 'i';
    t.bytes = type[1] - '0';
  }
  if (t.bytes == 0 || !(order == '<' || order == '>' || order == '|' || order == '='))
    src.fail("position ids must be integers (int8 .. int64, uint8 .. uint64), found descr '" +
             printable(descr, 20) + "'");
  t.big_endian = order == '>' && t.bytes > 1;
  return t;
}

}  // namespace

RowPositions read_position_ids(const ByteSource& src) {
  const NpyRawHeader h = npy_raw_header(src);
  const IntegerType type = integer_type(src, h.descr);
  const auto shape = position_ids_shape(h.shape);
  if (!shape)
    src.fail("position ids must have shape [N] or [3, N] (dimensions of size 1 allowed), found " +
             shape_string(h.shape));
  const uint64_t rows = shape->rows, streams = shape->streams;
  const auto elements = checked_mul(rows, streams);  // the header's shape: any number at all
  const uint64_t count = elements.value_or(0);
  const uint64_t have = src.size() - h.data_offset;
  const std::optional<uint64_t> bytes_needed =
      elements ? checked_mul(count, static_cast<uint64_t>(type.bytes)) : std::nullopt;
  const uint64_t need = bytes_needed.value_or(UINT64_MAX);  // UINT64_MAX: beyond any file
  if (!bytes_needed || need > have)
    src.fail("truncated: shape " + shape_string(h.shape) + " of '" + h.descr + "' needs " +
             (bytes_needed ? std::to_string(need) : std::string("over 2^64")) +
             " bytes of data, the file holds " + std::to_string(have));
  if (need < have) src.fail(std::to_string(have - need) + " bytes follow the position ids");
  std::vector<unsigned char> bytes(need);
  src.read(h.data_offset, need, bytes.data());
  RowPositions p;
  p.streams.assign(streams, std::vector<uint64_t>(rows));
  for (uint64_t i = 0; i < count; ++i) {
    const unsigned char* at = bytes.data() + i * type.bytes;
    uint64_t v = 0;
    for (int b = 0; b < type.bytes; ++b)
      v |= uint64_t{at[type.big_endian ? type.bytes - 1 - b : b]} << (8 * b);
    if (type.is_signed && type.bytes < 8 && (v >> (8 * type.bytes - 1)) & 1)
      v |= ~uint64_t{0} << (8 * type.bytes);  // sign-extend
    // Element i of the stored order: C order is [stream][row], Fortran order [row][stream].
    const uint64_t s = h.fortran_order ? i % streams : i / rows;
    const uint64_t r = h.fortran_order ? i / streams : i % rows;
    if (type.is_signed && static_cast<int64_t>(v) < 0)
      src.fail("position id " + std::to_string(static_cast<int64_t>(v)) + " at " +
               (streams == 3 ? "stream " + std::to_string(s) + ", " : std::string()) + "row " +
               std::to_string(r) + " is negative");
    if (v > kMaxPosition)
      src.fail("position id " + std::to_string(v) + " at row " + std::to_string(r) +
               " is beyond 2^53");
    p.streams[s][r] = v;
  }
  return p;
}

RowPositions read_position_ids(const std::string& path) {
  const FileSource src(path);
  return read_position_ids(src);
}

}  // namespace pev
