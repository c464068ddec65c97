#include "oracle/table.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/parallel.h"

namespace pev::oracle {

ExactTable compute_table(const Engine& engine, const TableSpec& spec, uint64_t count, int threads) {
  constexpr int kTileRows = 16;
  const int pairs = spec.d_model / 2;
  ExactTable table;
  table.rows = count;
  table.width = table_width(spec);
  table.rounded.resize(count * table.width);
  table.exact.resize(count * table.width);
  std::vector<Column> columns(table.width);
  for (int c = 0; c < table.width; ++c) columns[c] = column_at(spec, c);

  const uint64_t tiles = (count + kTileRows - 1) / kTileRows;
  parallel_for(tiles, threads, [&](uint64_t t) {
    const uint64_t first_row = t * kTileRows;
    const Tile tile{spec.start + first_row,
                    static_cast<int>(std::min<uint64_t>(kTileRows, count - first_row)), 0, pairs};
    thread_local TileValues v;  // reused: a fast engine is quick enough for allocation to show
    engine.evaluate(tile, v);
    for (int r = 0; r < tile.position_count; ++r) {
      const size_t row = (first_row + r) * table.width;
      for (int c = 0; c < table.width; ++c) {
        const size_t src = static_cast<size_t>(r) * pairs + columns[c].pair;
        table.rounded[row + c] = columns[c].is_sin ? v.sin_rounded[src] : v.cos_rounded[src];
        table.exact[row + c] = columns[c].is_sin ? v.sin_exact[src] : v.cos_exact[src];
      }
    }
  });
  return table;
}

namespace {

std::string cache_file(const std::string& dir, const TableSpec& spec, uint64_t count) {
  return fmt::format("{}/exact-d{}-b{:a}-{}-{}-p{}-n{}.f64", dir, spec.d_model, spec.base,
                     name_of(spec.schedule), name_of(spec.layout), spec.start, count);
}

}  // namespace

std::vector<double> exact_values(const TableSpec& spec, uint64_t count, int threads) {
  const char* dir = std::getenv("PEV_ORACLE_CACHE");
  const size_t n = count * static_cast<size_t>(table_width(spec));
  std::string path;
  if (dir && *dir) {
    path = cache_file(dir, spec, count);
    std::ifstream in(path, std::ios::binary);
    std::vector<double> v(n);
    if (in && in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * 8)) &&
        in.peek() == std::char_traits<char>::eof())
      return v;
  }
  // The fast engine gives the MPFR engine's bits (fast_engine_test.cc), ~200x sooner.
  const auto engine = make_fast_engine(spec, Dtype::kFloat64);
  ExactTable t = compute_table(*engine, spec, count, threads);
  if (!path.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
    {
      std::ofstream out(tmp, std::ios::binary);
      out.write(reinterpret_cast<const char*>(t.exact.data()), static_cast<std::streamsize>(n * 8));
    }
    std::filesystem::rename(tmp, path, ec);  // atomic; a lost race leaves an identical file
    if (ec) std::filesystem::remove(tmp, ec);
  }
  return std::move(t.exact);
}

}  // namespace pev::oracle
