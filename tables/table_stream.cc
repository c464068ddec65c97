#include "peverify/tables/table_stream.h"

#include <algorithm>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/tables/npy_reader.h"
#include "peverify/tables/safetensors_reader.h"

namespace pev {

TableStream::TableStream(std::unique_ptr<ByteSource> src, TableHeader header)
    : src_(std::move(src)), header_(std::move(header)) {
  const ElementLayout& l = header_.layout;
  const auto count = checked_mul(l.rows, l.width);
  const auto bytes =
      count ? checked_mul(*count, traits_of(l.dtype).storage_bits / 8) : std::nullopt;
  if (!bytes || l.offset > src_->size() || *bytes > src_->size() - l.offset)
    src_->fail("the data is shorter than the header claims");
}

void TableStream::read_rows(uint64_t first, uint64_t n, double* out) const {
  const ElementLayout& l = header_.layout;
  if (first > l.rows || n > l.rows - first) src_->fail("rows beyond the end of the table");
  const uint64_t size = traits_of(l.dtype).storage_bits / 8;
  thread_local std::vector<unsigned char> bytes;
  if (!l.column_major) {
    bytes.resize(n * l.width * size);
    src_->read(l.offset + first * l.width * size, bytes.size(), bytes.data());
    widen_elements(bytes.data(), n * l.width, l.dtype, l.big_endian, out);
    return;
  }
  // Fortran order: column c of the block is a run of n elements at c * rows + first.
  thread_local std::vector<double> column;
  bytes.resize(n * size);
  column.resize(n);
  for (uint64_t c = 0; c < l.width; ++c) {
    src_->read(l.offset + (c * l.rows + first) * size, bytes.size(), bytes.data());
    widen_elements(bytes.data(), n, l.dtype, l.big_endian, column.data());
    for (uint64_t r = 0; r < n; ++r) out[r * l.width + c] = column[r];
  }
}

TableStream open_table(std::unique_ptr<ByteSource> src, const std::string& path,
                       const ReadOptions& opts) {
  if (src->size() == 0) src->fail("the file is empty");
  switch (sniff_table_kind(*src, path)) {
    case TableKind::kNpy: {
      if (opts.tensor) src->fail("--tensor applies to .safetensors files only");
      TableHeader h = npy_header(*src, opts);
      return TableStream(std::move(src), std::move(h));
    }
    case TableKind::kSafetensors: {
      TableHeader h = safetensors_header(*src, opts);
      return TableStream(std::move(src), std::move(h));
    }
    case TableKind::kUnknown:
      break;
  }
  src->fail("is neither a .npy nor a .safetensors file (unrecognised content)");
}

TableStream open_table(const std::string& path, const ReadOptions& opts) {
  return open_table(std::make_unique<FileSource>(path), path, opts);
}

}  // namespace pev
