// A table file opened for streaming (`peverify verify`, `peverify check`): the header is read and
// checked as hostile input like read_table does, then rows are read a block at a time, so that
// memory does not grow with the table (docs/architecture.md §9).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "peverify/tables/table_file.h"

namespace pev {

class TableStream {
 public:
  TableStream(std::unique_ptr<ByteSource> src, TableHeader header);

  uint64_t rows() const { return header_.layout.rows; }
  uint64_t width() const { return header_.layout.width; }  // values per row (complex: 2 each)
  Dtype dtype() const { return header_.layout.dtype; }
  bool complex() const { return header_.complex; }
  const std::string& description() const { return header_.description; }
  const std::vector<uint64_t>& shape() const { return header_.shape; }  // as the file gives it

  // Rows [first, first + n) widened exactly to double, row-major (n * width() values); Fortran
  // order is transposed on the way. Safe to call from several threads at once.
  void read_rows(uint64_t first, uint64_t n, double* out) const;

 private:
  std::unique_ptr<ByteSource> src_;
  TableHeader header_;
};

// Picks the reader by content like read_table, reads and checks the header. Throws FileError.
TableStream open_table(const std::string& path, const ReadOptions& opts);
// The same over any byte source (tests: a MemorySource).
TableStream open_table(std::unique_ptr<ByteSource> src, const std::string& path,
                       const ReadOptions& opts);

}  // namespace pev
