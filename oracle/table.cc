#include "oracle/table.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace pev::oracle {

void parallel_for(uint64_t n, int threads, const std::function<void(uint64_t)>& body) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(threads), n));
  std::atomic<uint64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (uint64_t i; (i = next.fetch_add(1)) < n;) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next.store(n);  // stop handing out work
      }
    }
  };
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);
}

ExactTable compute_table(const Engine& engine, const TableSpec& spec, uint64_t count,
                         int threads) {
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
    TileValues v;
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

}  // namespace pev::oracle
