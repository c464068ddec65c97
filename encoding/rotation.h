// The rotation a RoPE kernel applies to q and k (docs/features.md §15): what peverify verify-rotary
// judges. Given a head vector x at position p, each frequency pair j rotates two of its
// dimensions (a, b) by the angle p w_j of the table spec's recipe, times its attention factor A:
//   out_a = A (x_a cos(p w_j) - x_b sin(p w_j)),   out_b = A (x_b cos(p w_j) + x_a sin(p w_j)).
// Dimensions at or past the rotary dimension pass through unchanged (partial rotary).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "peverify/encoding/spec.h"

namespace pev {

// Which two dimensions of a head pair j rotates.
enum class PairConvention {
  kHalves,       // rotate-half (GPT-NeoX, Llama in Hugging Face): (j, j + d/2)
  kInterleaved,  // GPT-J, Meta's complex form: (2j, 2j + 1)
};

struct RotationSpec {
  TableSpec table;   // d_model is the rotary dimension d; base, schedule and recipe give w_j and A
  int head_dim = 0;  // >= d: dimensions d .. head_dim - 1 pass through
  PairConvention pairs = PairConvention::kHalves;  // where pair j's inputs are
  // Where pair j's two outputs go; unset: where its inputs are. DeepSeek-V3's
  // apply_rotary_pos_emb_interleave reads (2j, 2j + 1) and writes (j, j + d/2).
  std::optional<PairConvention> output_pairs;
};

// (a, b) of pair j in the input: out_a takes -sin, out_b +sin.
std::pair<int, int> rotated_dims(const RotationSpec& spec, int pair);
// Where pair j's out_a and out_b are written (the output convention's (a, b)).
std::pair<int, int> output_dims(const RotationSpec& spec, int pair);
PairConvention output_convention(const RotationSpec& spec);

// Empty when valid, else one line ("head_dim 64 is smaller than the rotary dimension 128").
std::optional<std::string> validate(const RotationSpec& spec);

std::string_view name_of(PairConvention c);
PairConvention other_convention(PairConvention c);

// The other pair convention of the input, of the output, or of both, each with the flags that
// declare it: --pairs where it changes, --output-pairs where it differs from --pairs or was
// given (so that applying the flags to the declaration gives exactly this candidate).
struct Pairing {
  PairConvention pairs, output;
  std::vector<std::string> flags;
};
std::vector<Pairing> other_pairings(const RotationSpec& spec);
// "halves" (also "rotate-half", "neox") and "interleaved" (also "gptj").
std::optional<PairConvention> parse_pair_convention(std::string_view name);

}  // namespace pev
