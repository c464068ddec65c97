// `peverify verify-rotary`: q (or k) before and after a RoPE kernel, every element against the
// exact rotation of the exact inputs, rounded once (docs/features.md §15). Streams the tensors a
// block of rows at a time, like verify.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/model_config.h"
#include "peverify/encoding/positions.h"
#include "peverify/encoding/rotation.h"
#include "peverify/measure/rotation_budget.h"
#include "peverify/properties/checks.h"
#include "peverify/verify/verify.h"

namespace pev::verify {

// The order of a tensor's axes; the last is always the head dimension.
enum class RotaryAxes {
  kTokensHeadsDim,    // [tokens, heads, head_dim] (vLLM, FlashInfer, Transformer Engine's thd)
  kBatchSeqHeadsDim,  // [batch, seq, heads, head_dim] (FlashAttention, Hugging Face before
                      // transpose)
  kBatchHeadsSeqDim,  // [batch, heads, seq, head_dim] (Hugging Face's apply_rotary_pos_emb)
};
std::string_view name_of(RotaryAxes a);
std::optional<RotaryAxes> parse_rotary_axes(std::string_view name);

// Where file row r (the rows of head_dim values) sits: batch, sequence index, head.
struct TensorGeometry {
  RotaryAxes axes = RotaryAxes::kTokensHeadsDim;
  uint64_t batch = 1, seq = 0, heads = 1;
  int head_dim = 0;
  struct Place {
    uint64_t batch, seq, head;
  };
  Place place(uint64_t row) const;
  uint64_t rows() const { return batch * seq * heads; }
  uint64_t row(uint64_t b, uint64_t s, uint64_t head) const {
    return axes == RotaryAxes::kBatchHeadsSeqDim ? (b * heads + head) * seq + s
                                                 : (b * seq + s) * heads + head;
  }
  uint64_t token(uint64_t row) const {  // batch * seq + seq index
    const Place p = place(row);
    return p.batch * seq + p.seq;
  }
};
// The geometry of a shape under `axes`; rank 2 is [tokens, head_dim] (one head), rank 3
// [tokens, heads, head_dim], rank 4 either 4-axis order. Throws ConfigError naming the shape.
TensorGeometry geometry_of(const std::vector<uint64_t>& shape, RotaryAxes axes);

struct RotaryTensor {
  std::string name;         // the file, as the user gave it
  std::string description;  // "npy <f4 [4096, 32, 128]"
  Dtype dtype = Dtype::kFloat32;
  std::function<void(uint64_t first, uint64_t n, double* out)> read;  // rows of head_dim
};

struct VerifyRotaryOptions {
  RotationSpec spec;
  TensorGeometry geometry;
  bool axes_assumed = false;  // the axes were not given: the verdict says which were assumed
  // Token t at position start + its sequence index, or at ids (one per token, or one per
  // sequence index shared by every batch row; [3, N] for M-RoPE).
  uint64_t start = 0;
  std::optional<RowPositions> positions;
  std::string positions_name;
  Claim::Kind claim = Claim::Kind::kModel;
  measure::RotationCompute compute = *measure::parse_rotation_compute("float32");
  std::string source;  // where the rotary parameters came from (rotary_source)
  // The rotation's table under each other layer type of the config (layer_type_specs).
  std::vector<std::pair<std::string, TableSpec>> other_layer_types;
  bool diagnose = true;  // name a failing verdict's cause (VerifyRotaryResult::diagnosis)
  int threads = 0;
  uint64_t block_rows = 4096;  // about; a block holds whole tokens (every head of each)
};

struct VerifyRotaryResult {
  std::string input, output, description;
  VerifyRotaryOptions options;
  Dtype output_dtype = Dtype::kFloat32;
  std::vector<properties::PropertyVerdict> verdicts;  // pass-through (partial rotary), rotation
  uint64_t elements = 0;
  uint64_t failing_tokens = 0;         // tokens with an element of any head outside its verdict
  std::optional<Diagnosis> diagnosis;  // a failing verdict's, when VerifyRotaryOptions::diagnose
  double seconds = 0;                  // the verdict's, without the diagnosis
  double diagnosis_seconds = 0;        // the diagnosis's
  bool holds() const;
};

// What the command line and Python say, resolved in one place: the axes (empty: from the rank,
// rank 4 as Hugging Face's batch,heads,seq,dim), the rotary request (--rotary-dim as its d_model;
// the whole head rotates unless it or a config says less), the pairing, where the tokens are, the
// budget and how the kernel computes. Every problem is a ConfigError of one line (`flag` names
// the options as the caller spells them: "--" or "").
struct RotaryArguments {
  std::vector<uint64_t> shape;
  std::string axes, pairs = "halves", compute = "float32";
  std::string output_pairs;  // empty: as pairs
  RotaryRequest rotary;
  int64_t start = 0;
  std::optional<RowPositions> positions;
  std::string positions_name;
  Claim::Kind claim = Claim::Kind::kModel;
  int threads = 0;
  std::string flag = "--";
};
VerifyRotaryOptions resolve_rotary(RotaryArguments a);

// Every token's positions (token = batch row x sequence index): the ids (one per token, or one
// per sequence index shared by every batch row), else start + the sequence index. Throws
// ConfigError when the ids are neither.
RowPositions token_positions(const VerifyRotaryOptions& o);

VerifyRotaryResult verify_rotary(const RotaryTensor& input, const RotaryTensor& output,
                                 const VerifyRotaryOptions& options);

std::string to_text(const VerifyRotaryResult& r);
nlohmann::json to_json(const VerifyRotaryResult& r);

}  // namespace pev::verify
