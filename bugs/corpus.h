// The published-bug corpus's builders (bugs/README.md): caches and rotations computed the way
// Hugging Face's float32 code computes them (inv_freq in float32, angles p * inv_freq in float32,
// cos and sin in float32, times the attention factor in float32), with the one thing each bug
// report says went wrong, and the verdicts peverify gives them. Test code: each case is written
// from its report, in this project's own code.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "peverify/verify/verify.h"
#include "peverify/verify/verify_rotary.h"

namespace pev::bugs {

using verify::VerifyResult;
using verify::VerifyRotaryResult;

// What a cache was built with: its recipe (the spec whose inv_freq Hugging Face computes), the
// position each row was built at, and how the angles and the amplitude were bent.
struct Built {
  TableSpec spec;
  std::vector<uint64_t> positions;  // one per row (token); empty: spec.start + the row
  double angle_times = 1;           // 2: a rotation applied twice
  double amplitude = NAN;           // NaN: the recipe's attention factor in float32
  // The angle's product in this format (its inputs rounded to it first): 0 float32; 11 bits
  // TF32, 8 bfloat16.
  int product_bits = 0;
  int angle_bits = 0;  // the angle itself rounded to this many bits (11: float16's angles)
  std::function<bool(uint64_t row)> unwritten;  // rows left at zero
};

// The positions 0 .. rows - 1 rounded to `bits` significant bits (8: bfloat16, 11: float16).
std::vector<uint64_t> rounded_positions(uint64_t rows, int bits);

// Rows of cos then sin per pair, as one float32 value per column of `layout` (rows x width).
std::vector<double> cache(const Built& b, uint64_t rows, Layout layout);

// verify on the cache as `declared` says it was built (`source` a config's name: the parameters
// came from it; `positions`: the declared ids, one per row; `other_layer_types`: the config's
// other layer types, as the command line reads them).
VerifyResult verify_cache(
    const std::vector<double>& values, const TableSpec& declared, const std::string& source = "",
    const std::vector<uint64_t>& positions = {},
    const std::vector<std::pair<std::string, TableSpec>>& other_layer_types = {});

// A rotation [batch, seq, heads, head_dim] of deterministic normal inputs, by the cache `b`
// builds for each token (b.positions per token, batch-major), halves pairing over the rotary
// part `b.spec.d_model`, partner j + partner_offset (rotary_dim / 2 honestly); the rest passes
// through.
struct Rotation {
  uint64_t batch = 1, seq = 0, heads = 1;
  int head_dim = 0;
  int partner_offset = 0;  // 0: rotary_dim / 2
  std::vector<double> x, y;
};
Rotation rotate(const Built& b, uint64_t batch, uint64_t seq, uint64_t heads, int head_dim,
                int partner_offset = 0);

// verify-rotary on it, declared with `declared` (rotary dim its d_model), halves pairs, the
// float32 model claim, and the token ids `positions` (one per token; empty: declared.start + the
// sequence index).
VerifyRotaryResult verify_rotation(const Rotation& r, const TableSpec& declared,
                                   const std::vector<uint64_t>& positions = {},
                                   const std::string& source = "",
                                   PairConvention pairs = PairConvention::kHalves,
                                   const std::string& compute = "float32");

// q rotated as ggml-cpu's rope rotates it (ggml src/ggml-cpu/ops.cpp, rope_f32 with
// ggml_rope_cache_init): theta_scale = powf(base, -2/n_dims), the angle by the recurrence
// theta_0 = p, theta_{j+1} = theta_j theta_scale in float, divided by the pair's rope_freqs
// factor where given, cos and sin in float; NORMAL mode pairs (2j, 2j + 1), NEOX (j, j + d/2).
Rotation ggml_rotate(const TableSpec& spec, uint64_t seq, uint64_t heads, bool neox,
                     const std::vector<float>& freq_factors = {});

// The cos/sin cache ggml-cpu's rope computes on the way (ggml_rope_cache_init, as ggml_rotate),
// rows 0 .. rows - 1 in vLLM's cos_sin_cache layout (every cos, then every sin).
std::vector<double> ggml_cache(const TableSpec& spec, uint64_t rows,
                               const std::vector<float>& freq_factors = {});

// The rope_freqs tensor convert_hf_to_gguf.py writes for a llama3 recipe: per pair, the plain
// frequency over the scaled one, in float32 (llama.cpp#8676).
std::vector<float> llama3_rope_freqs(const TableSpec& spec);

}  // namespace pev::bugs
