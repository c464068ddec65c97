#include "peverify/oracle/positioned.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/encoding/rope.h"
#include "peverify/oracle/table.h"
#include "peverify/support/parallel.h"

namespace pev::oracle {
namespace {

// The tiles of one stream: its distinct positions in runs of consecutive integers, each run
// evaluated for the pairs [first_pair, end_pair).
struct StreamValues {
  IdRuns ids;
  TileValues values;  // [distinct index][pair - first_pair]
  TileValues run;
  void compute(const Engine& engine, std::vector<uint64_t> stream, int first_pair, int end_pair) {
    ids = id_runs(std::move(stream), 4096);  // a tile's position count is an int
    const size_t width = static_cast<size_t>(end_pair - first_pair);
    values.resize(ids.distinct.size() * width);
    for (const auto& [first, end] : ids.runs) {
      engine.evaluate(
          {ids.distinct[first], static_cast<int>(end - first), first_pair, end_pair - first_pair},
          run);
      const size_t at = first * width, n = (end - first) * width;
      std::copy_n(run.sin_rounded.begin(), n, values.sin_rounded.begin() + at);
      std::copy_n(run.cos_rounded.begin(), n, values.cos_rounded.begin() + at);
      std::copy_n(run.sin_exact.begin(), n, values.sin_exact.begin() + at);
      std::copy_n(run.cos_exact.begin(), n, values.cos_exact.begin() + at);
    }
  }
};

}  // namespace

void evaluate_rows(const Engine& engine, const TableSpec& spec, const RowPositions& positions,
                   const uint64_t* rows, uint64_t n, TileValues& out) {
  const int pairs = spec.d_model / 2;
  out.resize(n * static_cast<size_t>(pairs));
  // Rows whose streams all agree (text tokens) need one stream's values for every pair.
  bool single = true;
  for (uint64_t i = 0; i < n && single; ++i) single = positions.single(rows[i]);
  const int streams = single ? 1 : positions.stream_count();
  thread_local StreamValues v;
  for (int s = 0; s < streams; ++s) {
    std::vector<int> own;  // the pairs of stream s
    for (int j = 0; j < pairs; ++j)
      if (streams == 1 || mrope_stream(spec.rope, j) == s) own.push_back(j);
    if (own.empty()) continue;
    const int first_pair = own.front(), end_pair = own.back() + 1;
    std::vector<uint64_t> ids(n);
    for (uint64_t i = 0; i < n; ++i) ids[i] = positions.streams[static_cast<size_t>(s)][rows[i]];
    v.compute(engine, ids, first_pair, end_pair);
    const size_t width = static_cast<size_t>(end_pair - first_pair);
    for (uint64_t i = 0; i < n; ++i) {
      const size_t from = v.ids.index_of(ids[i]) * width, to = i * static_cast<size_t>(pairs);
      for (const int j : own) {
        const size_t a = from + static_cast<size_t>(j - first_pair), b = to + j;
        out.sin_rounded[b] = v.values.sin_rounded[a];
        out.cos_rounded[b] = v.values.cos_rounded[a];
        out.sin_exact[b] = v.values.sin_exact[a];
        out.cos_exact[b] = v.values.cos_exact[a];
      }
    }
  }
}

void rounded_encodings_at(const Engine& engine, const TableSpec& spec,
                          const RowPositions& positions, uint64_t first, uint64_t n, Dtype dtype,
                          uint64_t* out, int threads) {
  constexpr uint64_t kRowsPerTask = 256;
  const int pairs = spec.d_model / 2;
  const std::vector<Column> columns = columns_of(spec);
  const uint64_t width = columns.size();
  parallel_for((n + kRowsPerTask - 1) / kRowsPerTask, threads, [&](uint64_t task) {
    const uint64_t begin = first + task * kRowsPerTask;
    const uint64_t count = std::min(kRowsPerTask, first + n - begin);
    std::vector<uint64_t> rows(count);
    std::iota(rows.begin(), rows.end(), begin);
    thread_local TileValues values;
    thread_local std::vector<double> rounded;
    evaluate_rows(engine, spec, positions, rows.data(), count, values);
    rounded.resize(count * width);
    layout_rows(columns, pairs, values, count, true, rounded.data());
    for (uint64_t i = 0; i < rounded.size(); ++i)
      out[(begin - first) * width + i] = encode_exact(rounded[i], dtype);
  });
}

}  // namespace pev::oracle
