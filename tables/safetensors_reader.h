// Reads one tensor of a .safetensors file as a table, treating the file as hostile input.
//
// The format: an 8-byte little-endian header length, a JSON header mapping tensor names to
// {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the end of the header),
// then the data. Accepted dtypes: F64, F32, F16, BF16, and U16 / I16 with --dtype bfloat16 or
// float16. Shape [N, d] or [1, N, d]. Every tensor's range must lie inside the data and no two
// ranges may overlap; "__metadata__" is ignored.
#pragma once

#include "peverify/tables/table_file.h"

namespace pev {

// Reads the tensor named by opts.tensor, or the file's only tensor. Throws FileError.
LoadedTable read_safetensors(const ByteSource& src, const ReadOptions& opts);
// The header alone: where the chosen tensor's elements are and how they are stored.
TableHeader safetensors_header(const ByteSource& src, const ReadOptions& opts);

}  // namespace pev
