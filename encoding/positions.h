// Position ids (docs/mathematics.md §1.4): a table whose rows are not positions start .. start + N
// - 1. Packed sequences restart at 0, left padding shifts them, speculative decoding and chunked
// prefill start anywhere, a gathered cache holds rows in any order and repeats them, and M-RoPE
// (Qwen2-VL and later) gives each row three positions: temporal, height and width.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "peverify/encoding/spec.h"

namespace pev {

struct RowPositions {
  // streams[s][r]: row r's position in stream s; one stream, or three for M-RoPE (temporal,
  // height, width). Every stream has one id per row.
  std::vector<std::vector<uint64_t>> streams;

  uint64_t rows() const { return streams.empty() ? 0 : streams[0].size(); }
  int stream_count() const { return static_cast<int>(streams.size()); }
  // Row r's position in the stream pair `pair` of `spec` takes its angle from (one stream: that
  // stream's; three streams: mrope_stream's).
  uint64_t of_pair(const TableSpec& spec, uint64_t row, int pair) const;
  // The largest of row r's positions: what its error budget grows with (the angles of its pairs
  // are at most this position times their frequency).
  uint64_t budget_position(uint64_t row) const;
  // Whether all of row r's streams agree (a text token's row): then the row is the one-stream
  // table's row at that position.
  bool single(uint64_t row) const;
  // The largest id of any stream: the sequence length recipes that need one see is it + 1.
  uint64_t max_position() const;
  // "positions.npy: 3 streams x 4096 rows, ids 0 .. 1203": for a verdict's first line.
  std::string describe(const std::string& name) const;
};

// (streams, rows) of an array of position ids: [N] for one stream, [3, N] for M-RoPE, dimensions
// of size 1 anywhere allowed (frameworks keep position_ids as [1, N] and [3, 1, N]); nullopt for
// any other shape. The .npy reader and Python's positions= share this rule.
struct PositionIdsShape {
  uint64_t streams = 1, rows = 0;
};
std::optional<PositionIdsShape> position_ids_shape(const std::vector<uint64_t>& shape);

// The positions as the spec's rows would have them: 0 .. rows - 1 from spec.start, one stream.
RowPositions consecutive_positions(const TableSpec& spec, uint64_t rows);

// Empty when the positions fit the spec and a table of `rows` rows, else one line: as many ids as
// rows; three streams only for a spec with M-RoPE (one stream for an M-RoPE spec means text
// positions, every stream the same); every id <= kMaxPosition.
std::optional<std::string> validate_positions(const RowPositions& p, const TableSpec& spec,
                                              uint64_t rows);

// Sets the sequence length recipes depend on (dynamic, longrope) from the largest position id + 1,
// as Hugging Face computes its cache for a batch's position_ids.
void set_sequence_length(TableSpec& spec, const RowPositions& p);

// Ids as a computation takes them: the distinct ones sorted, in runs of consecutive integers (each
// run one tile of the oracle, one call of a registry entry), at most `max_run` long.
struct IdRuns {
  std::vector<uint64_t> distinct;
  std::vector<std::pair<size_t, size_t>> runs;  // [first, end) indices into distinct
  size_t index_of(uint64_t id) const;           // of an id that is among them
};
IdRuns id_runs(std::vector<uint64_t> ids, size_t max_run = SIZE_MAX);

// The rows in order of their positions (stream 0, then 1, then 2; ties by row): the order in which
// a column's errors vary smoothly, whatever order the table holds its rows in.
std::vector<uint64_t> rows_by_position(const RowPositions& p);

}  // namespace pev
