#include "peverify/oracle/table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "peverify/encoding/format.h"
#include "peverify/oracle/version.h"
#include "peverify/support/parallel.h"
#include "peverify/support/temporary_files.h"

namespace pev::oracle {

void layout_rows(const TableSpec& spec, const TileValues& v, uint64_t n, bool rounded,
                 double* out) {
  const double* sin = (rounded ? v.sin_rounded : v.sin_exact).data();
  const double* cos = (rounded ? v.cos_rounded : v.cos_exact).data();
  const int pairs = spec.d_model / 2;
  const size_t width = static_cast<size_t>(table_width(spec));
  const RowShape shape = row_shape(spec.layout, pairs);
  for (uint64_t r = 0; r < n; ++r) {
    const size_t from = r * static_cast<size_t>(pairs);
    lay_out_row(shape, pairs, sin + from, cos + from, out + r * width);
  }
}

ExactTable compute_table(const Engine& engine, const TableSpec& spec, uint64_t count, int threads) {
  constexpr int kTileRows = 16;
  const int pairs = spec.d_model / 2;
  ExactTable table;
  table.rows = count;
  table.width = table_width(spec);
  table.rounded.resize(count * table.width);
  table.exact.resize(count * table.width);

  const uint64_t tiles = (count + kTileRows - 1) / kTileRows;
  parallel_for(tiles, threads, [&](uint64_t t) {
    const uint64_t first_row = t * kTileRows;
    const Tile tile{spec.start + first_row,
                    static_cast<int>(std::min<uint64_t>(kTileRows, count - first_row)), 0, pairs};
    thread_local TileValues v;  // reused: a fast engine is quick enough for allocation to show
    engine.evaluate(tile, v);
    const size_t at = first_row * table.width;
    layout_rows(spec, v, tile.position_count, true, table.rounded.data() + at);
    layout_rows(spec, v, tile.position_count, false, table.exact.data() + at);
  });
  return table;
}

void rounded_encodings(const Engine& engine, const TableSpec& spec, uint64_t first, uint64_t n,
                       Dtype dtype, uint64_t* out, int threads) {
  TableSpec block = spec;
  block.start = spec.start + first;
  const ExactTable t = compute_table(engine, block, n, threads);
  for (size_t i = 0; i < t.rounded.size(); ++i) out[i] = encode_exact(t.rounded[i], dtype);
}

namespace {

constexpr std::string_view kCacheMagic = "peverify exact values v2";

std::string hex_list(const std::vector<double>& v) {
  return fmt::format("{:a}", fmt::join(v, ","));
}

std::string hex_or_none(const std::optional<double>& x) {
  return x ? fmt::format("{:a}", *x) : std::string("none");
}

// FNV-1a: a stable name for a key (std::hash is not stable across builds); the file's header
// holds the whole key, so a collision is detected, never served.
uint64_t fnv1a(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325;
  for (const unsigned char c : text) h = (h ^ c) * 0x100000001b3;
  return h;
}

}  // namespace

std::string exact_values_cache_key(const TableSpec& spec, uint64_t count,
                                   std::string_view version) {
  const RopeScaling& r = spec.rope;
  return fmt::format(
      "oracle {} | d {} base {:a} schedule {} layout {} start {} rows {} | rope {} factor {:a} "
      "L0 {} L {} n {} beta {:a} {:a} truncate {} mscale {} {} attention {} low {:a} high {:a} "
      "short [{}] long [{}]",
      version, spec.d_model, spec.base, name_of(spec.schedule), name_of(spec.layout), spec.start,
      count, name_of(r.type), r.factor, r.original_max_position, r.max_position, r.sequence_length,
      r.beta_fast, r.beta_slow, r.truncate, hex_or_none(r.mscale), hex_or_none(r.mscale_all_dim),
      hex_or_none(r.attention_factor), r.low_freq_factor, r.high_freq_factor,
      hex_list(r.short_factor), hex_list(r.long_factor));
}

std::string exact_values_cache_path(const std::string& dir, const TableSpec& spec, uint64_t count,
                                    std::string_view version) {
  return fmt::format("{}/exact-d{}-{}-{}-n{}-{:016x}.f64", dir, spec.d_model,
                     name_of(spec.rope.type), name_of(spec.layout), count,
                     fnv1a(exact_values_cache_key(spec, count, version)));
}

std::vector<double> exact_values(const TableSpec& spec, uint64_t count, int threads) {
  const char* dir = std::getenv("PEV_ORACLE_CACHE");
  const size_t n = count * static_cast<size_t>(table_width(spec));
  std::string path, header;
  if (dir && *dir) {
    path = exact_values_cache_path(dir, spec, count, oracle_version());
    header =
        fmt::format("{}\n{}\n", kCacheMagic, exact_values_cache_key(spec, count, oracle_version()));
    std::ifstream in(path, std::ios::binary);
    std::string got(header.size(), '\0');
    std::vector<double> v(n);
    if (in && in.read(got.data(), static_cast<std::streamsize>(got.size())) && got == header &&
        in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * 8)) &&
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
    register_temporary(tmp);  // before it exists: an interrupt never strands it
    {
      std::ofstream out(tmp, std::ios::binary);
      out.write(header.data(), static_cast<std::streamsize>(header.size()));
      out.write(reinterpret_cast<const char*>(t.exact.data()), static_cast<std::streamsize>(n * 8));
    }
    std::filesystem::rename(tmp, path, ec);  // atomic; a lost race leaves an identical file
    if (ec) std::filesystem::remove(tmp, ec);
    unregister_temporary(tmp);
  }
  return std::move(t.exact);
}

}  // namespace pev::oracle
