// Whole tables from an engine: tiles of positions spread over threads, laid out as the spec's
// layout says.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle {

// Row-major [count][table_width(spec)].
struct ExactTable {
  uint64_t rows = 0;
  int width = 0;
  std::vector<double> rounded;  // correctly rounded to the engine's target format
  std::vector<double> exact;    // correctly rounded to double
};

// Where each column of the spec's layout takes its value: one Column per column.
std::vector<Column> columns_of(const TableSpec& spec);
// n rows of the layout (columns.size() values each) from an engine's values [row][pair]: the
// correctly rounded ones, or the exact ones rounded to double.
void layout_rows(const std::vector<Column>& columns, int pairs, const TileValues& v, uint64_t n,
                 bool rounded, double* out);

// Positions spec.start .. spec.start + count - 1. threads <= 0 means one per hardware thread.
ExactTable compute_table(const Engine& engine, const TableSpec& spec, uint64_t count,
                         int threads = 0);

// The encodings (traits_of(dtype).storage_bits wide, in the low bits) of rows [first, first + n)
// of the table, positions spec.start + first .., correctly rounded to `dtype`, the engine's
// target: what `peverify oracle` and Python's peverify.oracle() store, one block of rows at a
// time so that memory does not grow with the table.
void rounded_encodings(const Engine& engine, const TableSpec& spec, uint64_t first, uint64_t n,
                       Dtype dtype, uint64_t* out, int threads = 0);

// Just the exact values (correctly rounded to double), row-major in spec's layout: what error
// measures need, whatever the output type. When the environment variable PEV_ORACLE_CACHE names
// a directory, tables are kept there across processes (tests run one process per test, and many
// ask for the same grid); a file is written atomically and read back only if its header holds
// exactly this table's key (exact_values_cache_key) and its size matches, so neither another
// spec nor an older oracle is ever served.
std::vector<double> exact_values(const TableSpec& spec, uint64_t count, int threads = 0);

// What identifies a cached table: the oracle's version (version.h), every field of the spec
// (recipe included, doubles in hex) and the row count.
std::string exact_values_cache_key(const TableSpec& spec, uint64_t count, std::string_view version);
// The file exact_values uses in `dir` for that key.
std::string exact_values_cache_path(const std::string& dir, const TableSpec& spec, uint64_t count,
                                    std::string_view version);

}  // namespace pev::oracle
