// What the diagnoses read of the user's data (docs/architecture.md §8.1, §8.2): the sampled rows
// of a table and the sampled tokens of a rotation, and the same as the read-back takes them
// (verify/readback.h). Internal to verify.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "peverify/properties/position_map.h"
#include "peverify/properties/under_test.h"
#include "peverify/verify/readback.h"
#include "peverify/verify/verify.h"
#include "peverify/verify/verify_rotary.h"

namespace pev::verify::diagnosis {

// Rows as `read` gives them: in file order, or at position ids in order of their positions.
struct SampleBlock {
  uint64_t first;                   // the first row, in read's order
  std::vector<uint64_t> file_rows;  // each row's row in the file
  std::vector<double> got;          // its rows, as stored
};

// The blocks diagnosis::sampled_blocks chooses, read through `read` (with `map`, at position
// ids in the order of their positions), the failing verdict's worst rows among them.
std::vector<SampleBlock> sample_rows(const properties::RowReader& read, uint64_t rows, int width,
                                     const properties::PositionMap* map,
                                     const VerifyResult& failed);

// The sampled rows as the read-back takes them: each pair's A cos and A sin at the declared
// position, a function the table does not hold read from declared.companion's row. No rows where
// a pair has no cos in either, or for M-RoPE (its pairs follow three streams).
readback::Observations observe(const std::vector<SampleBlock>& sample,
                               const VerifyOptions& declared, Dtype dtype);

// Whether the row the declaration puts at `position` comes back unrotated, read from the table
// (in file order only; empty otherwise).
std::function<std::optional<bool>(uint64_t)> unrotated_probe(const properties::RowReader& read,
                                                             uint64_t rows,
                                                             const VerifyOptions& declared,
                                                             const readback::Observations& o);

// The sampled tokens of both tensors as one [tokens, heads, head_dim] tensor each, with their
// positions, cut into the blocks they were sampled in.
struct RotarySample {
  std::vector<double> x, y;
  RowPositions positions;
  std::vector<uint64_t> block_ends;  // token index one past each block
  // Each sampled token's sequence index, and the positions batch row 0 has there.
  std::vector<uint64_t> seq_index;
  RowPositions first_batch_row;
  Dtype input_dtype = Dtype::kFloat32, output_dtype = Dtype::kFloat32;
  uint64_t positions_end = 0;  // one past the largest position of every token, sampled or not
  uint64_t tokens() const { return positions.rows(); }
};

// The blocks diagnosis::sampled_blocks chooses of both tensors, every head of each token.
RotarySample sample_tokens(const RotaryTensor& input, const RotaryTensor& output,
                           const VerifyRotaryOptions& o, const VerifyRotaryResult& failed);

// Every sampled head as the read-back takes it; none for M-RoPE.
readback::Observations observe(const RotarySample& sample, const VerifyRotaryOptions& o);

// Whether batch row 0's token at `position` comes back unrotated in every head, read from the
// tensors (without ids only; empty otherwise).
std::function<std::optional<bool>(uint64_t)> unrotated_probe(const RotaryTensor& input,
                                                             const RotaryTensor& output,
                                                             const VerifyRotaryOptions& o,
                                                             const readback::Observations& obs);

}  // namespace pev::verify::diagnosis
