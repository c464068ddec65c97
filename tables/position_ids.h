// Reads a .npy of integer position ids (`--positions FILE`, docs/mathematics.md §1.4) as hostile
// input: shape [N] for one stream, or [3, N] for M-RoPE's temporal, height and width streams (extra
// dimensions of size 1 allowed, as frameworks save position_ids [1, N] and [3, 1, N]); any
// integer type NumPy writes, either byte order, C or Fortran order. Ids must be >= 0 and <= 2^53.
// Floating-point ids are refused: a float16 or float32 id is where positions start to collide.
#pragma once

#include <string>

#include "peverify/encoding/positions.h"
#include "peverify/tables/table_file.h"

namespace pev {

RowPositions read_position_ids(const std::string& path);
RowPositions read_position_ids(const ByteSource& src);

}  // namespace pev
