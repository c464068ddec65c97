// Reads NumPy .npy tables (format versions 1.0, 2.0 and 3.0) as hostile input.
//
// Accepted: descr '<f8', '<f4', '<f2' (and their big-endian '>' forms, byte-swapped); 16-bit
// patterns '<u2', '<i2' with --dtype bfloat16 or float16; '<V2' / '|V2' (how NumPy saves
// ml_dtypes' bfloat16) as bfloat16 unless --dtype float16 says otherwise. C or Fortran order
// (transposed on reading). Shape [N, d] or [1, N, d], N, d >= 1; the data must fill the rest of
// the file exactly.
#pragma once

#include "peverify/tables/table_file.h"

namespace pev {

// The header's Python dict literal is parsed strictly, by hand (NumPy evaluates it with
// ast.literal_eval; no C++ library reads Python literals). Throws FileError on any problem.
LoadedTable read_npy(const ByteSource& src, const ReadOptions& opts);
// The header's fields as NumPy wrote them, checked for form only (the magic, the version, the
// length, the dict literal), and where the data starts: for readers of other arrays than tables.
struct NpyRawHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<uint64_t> shape;
  uint64_t data_offset = 0;
};
NpyRawHeader npy_raw_header(const ByteSource& src);
// The header alone: where the elements are and how they are stored (nothing is read beyond it).
TableHeader npy_header(const ByteSource& src, const ReadOptions& opts);

}  // namespace pev
