// Reads a user's positional-encoding table from a .npy or .safetensors file (docs/architecture.md
// §9, `peverify verify`). Files are hostile input: every number a header claims is checked against
// the file's real size before anything is allocated for it, and every problem is a FileError
// with one line of explanation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/support/atomic_file.h"

namespace pev {

// What the user said about the file on the command line.
struct ReadOptions {
  // `--dtype`: must agree with the file's own type; it chooses how opaque 16-bit data
  // (uint16, int16, 2-byte void) is read: as bfloat16 or float16 bit patterns.
  std::optional<Dtype> dtype = std::nullopt;
  // `--tensor NAME` (.safetensors only); without it the file must hold exactly one tensor.
  std::optional<std::string> tensor = std::nullopt;
  // A tensor of any rank (verify-rotary's q and k: [tokens, heads, head_dim], ...), read as rows
  // of its last dimension; a table otherwise ([N, d], extra dimensions of size 1 allowed).
  bool any_rank = false;
};

// A table as read: `rows` positions of `width` values each, row-major.
struct LoadedTable {
  uint64_t rows = 0;               // N
  uint64_t width = 0;              // d (or d/2 for a rope-cos / rope-sin cache)
  Dtype dtype = Dtype::kFloat32;   // the storage type
  std::vector<double> values;      // rows * width values, widened exactly (NaN and Inf kept)
  std::vector<unsigned char> raw;  // the stored encodings, little-endian, row-major
  std::string description;         // e.g. "npy <f4 [4096, 512]"
  bool complex = false;  // complex numbers (each one two values, real then imaginary): polar only

  // The stored bit pattern of element i (row-major): exact even for NaN payloads.
  uint64_t bits(uint64_t i) const;
};

// Picks the reader by content (the .npy magic, a plausible safetensors header), else by the
// extension, and reads the table. Throws FileError ("PATH: reason", one line) on any problem.
LoadedTable read_table(const std::string& path, const ReadOptions& opts);

// ---- For the readers (tables/npy_reader.h, tables/safetensors_reader.h) and their tests ----

// Random access to the bytes of a file, or of a buffer (tests, fuzzers).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Copies n bytes at offset into out. Throws FileError when offset + n > size() or on I/O error.
  virtual void read(uint64_t offset, uint64_t n, unsigned char* out) const = 0;
  // How messages name the source: a path already made printable.
  virtual const std::string& name() const = 0;
  // FileError("NAME: reason").
  [[noreturn]] void fail(const std::string& reason) const;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string_view bytes, const std::string& name);
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t offset, uint64_t n, unsigned char* out) const override;
  const std::string& name() const override { return name_; }

 private:
  std::string_view bytes_;
  std::string name_;
};

// A regular file, opened for reading (a directory, FIFO or device is refused).
class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, uint64_t n, unsigned char* out) const override;
  const std::string& name() const override { return name_; }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string name_;
};

// Where and how a reader found the elements: the loader needs nothing else.
struct ElementLayout {
  uint64_t offset = 0;            // of the first element in the source
  Dtype dtype = Dtype::kFloat32;  // elements take traits_of(dtype).storage_bits / 8 bytes
  bool big_endian = false;
  bool column_major = false;  // Fortran order: element (r, c) is stored at c * rows + r
  uint64_t rows = 0;
  uint64_t width = 0;
};

// Which reader a file needs: by content (the .npy magic, a plausible safetensors header), else by
// the extension. A zip archive (.npz) fails with advice.
enum class TableKind { kNpy, kSafetensors, kUnknown };
TableKind sniff_table_kind(const ByteSource& src, const std::string& path);

// What a reader finds in a header: the elements' layout, the description, complex or not.
struct TableHeader {
  ElementLayout layout;
  std::vector<uint64_t> shape;  // as the file gives it
  std::string description;
  bool complex = false;
};

// The header, read by the reader sniff_table_kind picks: what read_table and open_table
// (tables/table_stream.h) both start with. Throws FileError.
TableHeader table_header(const ByteSource& src, const std::string& path, const ReadOptions& opts);

// The unsigned integer stored little-endian in bytes[0, n), n <= 8: the headers' lengths.
uint64_t little_endian(const unsigned char* bytes, int n);

// The `length` bytes of a header that starts at `offset` (within the file), read only after
// `length` is checked against the rest of the file and against `max_length`: a hostile length
// must cost no memory.
std::string read_header_text(const ByteSource& src, uint64_t offset, uint64_t length,
                             uint64_t max_length);

// Reads the rows * width elements a header describes into a LoadedTable (values row-major,
// encodings little-endian). The reader has checked the sizes; they are checked again here,
// before allocating.
LoadedTable load_table(const ByteSource& src, TableHeader header);

// Widens n stored elements exactly to double (NaN and Inf kept; bfloat16 NaN payloads too).
void widen_elements(const unsigned char* bytes, uint64_t n, Dtype dtype, bool big_endian,
                    double* out);

// [N, d] from a shape of two dimensions or more whose extra ones are all 1 ([1, N, d],
// [1, 1, N, d], [N, 1, 1, d], as frameworks save caches); the last dimension is d. nullopt when
// more than two dimensions exceed 1 (or there are fewer than two).
std::optional<std::pair<uint64_t, uint64_t>> table_shape(const std::vector<uint64_t>& shape);

// The rows and width a reader gives a file's shape: table_shape's, or with `any_rank` the product
// of every dimension but the last, and the last (nullopt for a scalar or an overflow).
std::optional<std::pair<uint64_t, uint64_t>> rows_and_width(const std::vector<uint64_t>& shape,
                                                            bool any_rank);
// What rows_and_width accepts, in words, for the message when it refuses a shape.
std::string_view expected_shape(bool any_rank);

// a * b, or nullopt when it does not fit in 64 bits.
std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b);

// "[4096, 512]"; a shape of more than 8 dimensions is cut short ("[1, 1, ..., 1, ...]").
std::string shape_string(const std::vector<uint64_t>& shape);

// s made safe for a one-line message: bytes outside printable ASCII become \xNN, and s is cut
// to about max_len characters ("...").
std::string printable(std::string_view s, size_t max_len = 80);

}  // namespace pev
