#include "peverify/tables/table_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <new>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/tables/npy_reader.h"
#include "peverify/tables/safetensors_reader.h"

namespace pev {

uint64_t LoadedTable::bits(uint64_t i) const {
  const int size = traits_of(dtype).storage_bits / 8;
  const unsigned char* p = &raw[i * size];
  uint64_t b = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&b, p, size);
  } else {
    for (int k = 0; k < size; ++k) b |= uint64_t{p[k]} << (8 * k);
  }
  return b;
}

void ByteSource::fail(const std::string& reason) const { throw FileError(name() + ": " + reason); }

MemorySource::MemorySource(std::string_view bytes, const std::string& name)
    : bytes_(bytes), name_(printable(name, 160)) {}

void MemorySource::read(uint64_t offset, uint64_t n, unsigned char* out) const {
  if (offset > bytes_.size() || n > bytes_.size() - offset) fail("read beyond the end of the data");
  if (n > 0) std::memcpy(out, bytes_.data() + offset, n);  // out may be null for no bytes
}

FileSource::FileSource(const std::string& path) : name_(printable(path, 160)) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    fail(std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fail(S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

FileSource::~FileSource() { ::close(fd_); }

void FileSource::read(uint64_t offset, uint64_t n, unsigned char* out) const {
  if (offset > size_ || n > size_ - offset) fail("read beyond the end of the file");
  while (n > 0) {
    const ssize_t got =
        ::pread(fd_, out, std::min<uint64_t>(n, uint64_t{1} << 30), static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(std::string("read error: ") + std::strerror(errno));
    if (got == 0) fail("the file shrank while it was being read");
    out += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<uint64_t>(got);
  }
}

namespace {

// kSwap: the file's byte order is not this machine's. A template parameter, so that each loop
// below has no branch and vectorises.
template <typename Bits, bool kSwap>
Bits load_bits(const unsigned char* p) {
  Bits b;
  std::memcpy(&b, p, sizeof b);
  if constexpr (!kSwap) return b;
  if constexpr (sizeof(Bits) == 8) return __builtin_bswap64(b);
  if constexpr (sizeof(Bits) == 4) return __builtin_bswap32(b);
  return __builtin_bswap16(b);
}

// Every float16 value, widened: decoding by arithmetic costs more than this lookup.
const double* float16_values() {
  static const std::vector<double> table = [] {
    std::vector<double> t(65536);
    for (uint32_t b = 0; b < 65536; ++b) t[b] = decode(b, Dtype::kFloat16);
    return t;
  }();
  return table.data();
}

template <bool kSwap>
void widen(const unsigned char* bytes, uint64_t n, Dtype dtype, double* out) {
  switch (dtype) {
    case Dtype::kFloat64:
      for (uint64_t i = 0; i < n; ++i)
        out[i] = std::bit_cast<double>(load_bits<uint64_t, kSwap>(bytes + 8 * i));
      return;
    case Dtype::kFloat32:
      for (uint64_t i = 0; i < n; ++i)
        out[i] = std::bit_cast<float>(load_bits<uint32_t, kSwap>(bytes + 4 * i));
      return;
    case Dtype::kBFloat16:  // the high half of a float32
      for (uint64_t i = 0; i < n; ++i)
        out[i] = std::bit_cast<float>(uint32_t{load_bits<uint16_t, kSwap>(bytes + 2 * i)} << 16);
      return;
    case Dtype::kFloat16: {
      const double* values = float16_values();
      for (uint64_t i = 0; i < n; ++i) out[i] = values[load_bits<uint16_t, kSwap>(bytes + 2 * i)];
      return;
    }
  }
}

}  // namespace

void widen_elements(const unsigned char* bytes, uint64_t n, Dtype dtype, bool big_endian,
                    double* out) {
  if (big_endian == (std::endian::native == std::endian::big))
    widen<false>(bytes, n, dtype, out);
  else
    widen<true>(bytes, n, dtype, out);
}

uint64_t little_endian(const unsigned char* bytes, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{bytes[i]} << (8 * i);
  return v;
}

std::string read_header_text(const ByteSource& src, uint64_t offset, uint64_t length,
                             uint64_t max_length) {
  const uint64_t size = src.size();
  if (length > size - offset)
    src.fail("the header length (" + std::to_string(length) +
             " bytes) runs past the end of the file (" + std::to_string(size) + " bytes)");
  if (length > max_length)
    src.fail("the header is too large (" + std::to_string(length) + " bytes)");
  std::string text(length, '\0');
  src.read(offset, length, reinterpret_cast<unsigned char*>(text.data()));
  return text;
}

LoadedTable load_table(const ByteSource& src, TableHeader header) {
  const ElementLayout& layout = header.layout;
  const int size = traits_of(layout.dtype).storage_bits / 8;
  const auto count = checked_mul(layout.rows, layout.width);
  const auto bytes = count ? checked_mul(*count, size) : std::nullopt;
  if (!bytes || layout.offset > src.size() || *bytes > src.size() - layout.offset)
    src.fail("the data is shorter than the header claims");
  LoadedTable t;
  t.rows = layout.rows;
  t.width = layout.width;
  t.dtype = layout.dtype;
  t.description = std::move(header.description);
  t.complex = header.complex;
  try {
    t.values.resize(*count);
    t.raw.resize(*bytes);
  } catch (const std::bad_alloc&) {
    src.fail("not enough memory for a table of " + std::to_string(*count) + " values");
  }
  if (!layout.column_major) {
    src.read(layout.offset, *bytes, t.raw.data());
  } else {
    // Fortran order: element k of the file is (k % rows, k / rows).
    std::vector<unsigned char> file_order(*bytes);
    src.read(layout.offset, *bytes, file_order.data());
    for (uint64_t k = 0; k < *count; ++k) {
      const uint64_t at = (k % layout.rows) * layout.width + k / layout.rows;
      std::memcpy(&t.raw[at * size], &file_order[k * size], size);
    }
  }
  if (layout.big_endian)
    for (uint64_t at = 0; at < *bytes; at += size)
      std::reverse(t.raw.begin() + static_cast<std::ptrdiff_t>(at),
                   t.raw.begin() + static_cast<std::ptrdiff_t>(at + size));
  widen_elements(t.raw.data(), *count, t.dtype, /*big_endian=*/false, t.values.data());
  return t;
}

std::optional<std::pair<uint64_t, uint64_t>> table_shape(const std::vector<uint64_t>& shape) {
  if (shape.size() < 2) return std::nullopt;
  uint64_t rows = 1;
  int larger = 0;
  for (size_t i = 0; i + 1 < shape.size(); ++i)
    if (shape[i] != 1) {
      rows = shape[i];
      ++larger;
    }
  if (larger > 1) return std::nullopt;
  return std::pair{rows, shape.back()};
}

std::optional<std::pair<uint64_t, uint64_t>> rows_and_width(const std::vector<uint64_t>& shape,
                                                            bool any_rank) {
  if (!any_rank) return table_shape(shape);
  if (shape.empty()) return std::nullopt;
  uint64_t rows = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) {
    const auto r = checked_mul(rows, shape[i]);
    if (!r) return std::nullopt;
    rows = *r;
  }
  return std::pair{rows, shape.back()};
}

std::string_view expected_shape(bool any_rank) {
  return any_rank ? "expected a tensor of rank >= 1"
                  : "expected shape [N, d] (extra dimensions of size 1 allowed)";
}

std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::string shape_string(const std::vector<uint64_t>& shape) {
  if (shape.size() > 8)
    return fmt::format("[{}, ...]", fmt::join(shape.begin(), shape.begin() + 8, ", "));
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

std::string printable(std::string_view s, size_t max_len) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : s) {
    if (out.size() >= max_len) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(ch);
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

TableKind sniff_table_kind(const ByteSource& src, const std::string& path) {
  unsigned char head[9] = {};
  const uint64_t n = std::min<uint64_t>(src.size(), sizeof head);
  src.read(0, n, head);
  if (n >= 6 && std::memcmp(head, "\x93NUMPY", 6) == 0) return TableKind::kNpy;
  if (n == 9 && head[8] == '{' && little_endian(head, 8) <= src.size() - 8)
    return TableKind::kSafetensors;
  if (n >= 4 && std::memcmp(head, "PK\x03\x04", 4) == 0)
    src.fail("is a zip archive (.npz?): extract the .npy file from it first");
  const auto ends_with = [&](std::string_view ext) {
    if (path.size() < ext.size()) return false;
    return std::equal(
        ext.begin(), ext.end(), path.end() - static_cast<std::ptrdiff_t>(ext.size()),
        [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
  };
  if (ends_with(".npy")) return TableKind::kNpy;
  if (ends_with(".safetensors")) return TableKind::kSafetensors;
  return TableKind::kUnknown;
}

TableHeader table_header(const ByteSource& src, const std::string& path, const ReadOptions& opts) {
  if (src.size() == 0) src.fail("the file is empty");
  switch (sniff_table_kind(src, path)) {
    case TableKind::kNpy:
      if (opts.tensor) src.fail("--tensor applies to .safetensors files only");
      return npy_header(src, opts);
    case TableKind::kSafetensors:
      return safetensors_header(src, opts);
    case TableKind::kUnknown:
      break;
  }
  src.fail("is neither a .npy nor a .safetensors file (unrecognised content)");
}

LoadedTable read_table(const std::string& path, const ReadOptions& opts) {
  const FileSource src(path);
  return load_table(src, table_header(src, path, opts));
}

}  // namespace pev
