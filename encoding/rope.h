// The frequency recipes of rotary embeddings (docs/mathematics.md §12): how real models scale the
// frequencies b^(-2j/d) and the values. Each recipe is the real-number formula of Hugging Face's
// modeling_rope_utils, not its float32 arithmetic; numbers a config gives are the doubles they
// parse to, and the formulas' own constants (0.1, 0.001, 2 pi) are exact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pev {

enum class RopeType { kDefault, kLinear, kDynamic, kYarn, kLongRope, kLlama3, kProportional };

struct RopeScaling {
  RopeType type = RopeType::kDefault;
  double factor = 1.0;  // s: linear, dynamic, yarn, llama3, proportional (longrope: see below)
  // proportional (Gemma 4's p-RoPE): the share p of the head's pairs that rotate. Unlike the
  // table's partial_rotary_factor it leaves the table head_dim wide: the other pairs have w = 0.
  double partial_rotary_factor = 1.0;
  // L0, the pretrained context: yarn's correction range, longrope's switch, llama3's bands.
  uint64_t original_max_position = 0;
  // max_position_embeddings: dynamic's L; longrope's attention factor (max / L0).
  uint64_t max_position = 0;
  // The table's last position + 1, as Hugging Face computes the cache for it: dynamic rescales
  // its base from it, longrope chooses its factor list by it.
  uint64_t sequence_length = 0;
  double beta_fast = 32, beta_slow = 1;              // yarn
  bool truncate = true;                              // yarn: floor and ceil the correction range
  std::optional<double> mscale, mscale_all_dim;      // yarn
  std::optional<double> attention_factor;            // yarn, longrope: given explicitly
  double low_freq_factor = 1, high_freq_factor = 4;  // llama3
  std::vector<double> short_factor, long_factor;     // longrope: d/2 each
  // M-RoPE (Qwen2-VL and later, docs/mathematics.md §12.5): rows carry three position streams
  // (temporal, height, width) and each frequency pair takes its angle from one of them. Empty:
  // one stream. Any recipe above may come with it (Qwen's is the default recipe).
  std::vector<int> mrope_section;  // pairs per stream, summing to d/2 (sectioned) or fewer
  bool mrope_interleaved = false;  // Qwen3-VL: streams interleaved across pairs, not in sections
};
// Field by field (written out: CUDA sources include this header as C++17).
bool operator==(const RopeScaling& a, const RopeScaling& b);
inline bool operator!=(const RopeScaling& a, const RopeScaling& b) { return !(a == b); }

std::string_view name_of(RopeType t);
// "default", "linear", "dynamic", "yarn", "longrope", "llama3", "proportional"; "su" is
// longrope's older name.
std::optional<RopeType> parse_rope_type(std::string_view name);

// The position stream (0 temporal, 1 height, 2 width) pair j takes its angle from: 0 without
// M-RoPE. Sectioned: pairs [0, s0) stream 0, [s0, s0 + s1) stream 1, the rest stream 2 (what
// Qwen2-VL's split of cat(freqs, freqs) into mrope_section * 2 chunks, chunk i from stream i % 3,
// gives each half). Interleaved: pair j with j % 3 == 1 and j < 3 s1 from stream 1, j % 3 == 2
// and j < 3 s2 from stream 2, every other pair from stream 0 (transformers'
// apply_interleaved_mrope).
int mrope_stream(const RopeScaling& r, int pair);
// How many position streams a row has: 3 with M-RoPE, else 1.
inline int position_streams(const RopeScaling& r) { return r.mrope_section.empty() ? 1 : 3; }

// How many pairs of a d-wide table rotate: proportional's int(p * d // 2) (transformers'
// rope_angles, the product in double as Python's), d/2 for every other recipe. The others have
// frequency 0: cos 1, sin 0 at every position.
int rotated_pairs(const RopeScaling& r, int d);

// Whether the recipe's frequencies depend on the table's length (dynamic, longrope).
bool needs_sequence_length(const RopeScaling& r);

// Empty when the recipe is valid for rotary dimension d, else one line naming the field.
std::optional<std::string> validate_rope(const RopeScaling& r, int d);

// "yarn(factor=4, L0=32768, beta 32/1)": the recipe in a few words.
std::string describe(const RopeScaling& r);

// The recipe's quantities in double, for budgets, reports and implementations that mirror a
// framework's double arithmetic (the oracle computes them exactly, oracle/rope_frequencies.h).
namespace rope_double {

// theta_j = b^(-2j/d) turned into the recipe's w_j.
double frequency(const RopeScaling& r, double base, int d, int pair);
// The factor every value is multiplied by (1 for default, linear, dynamic, llama3).
double attention_factor(const RopeScaling& r);
// dynamic: the rescaled base b * (s n / L - (s - 1))^(d / (d - 2)), n = max(seq_len, L).
double dynamic_base(const RopeScaling& r, double base, int d);
// yarn: the correction range [low, high] (after floor/ceil when truncating, and +0.001 when
// equal) and the ramp of pair j in [0, 1].
struct YarnRange {
  double low, high;
};
YarnRange yarn_range(const RopeScaling& r, double base, int d);
double yarn_ramp(const YarnRange& range, int pair);

}  // namespace rope_double

// What the recipe does to the relative error of w_j an honest implementation makes, in units of
// the compute precision's u (docs/mathematics.md §3.2): the error theta_j already carries (C u)
// comes out multiplied by 1 + gain, and the recipe's own roundings add `extra`. The model claim's
// angle term for pair j is then (C (1 + gain) + extra) u a. Zero for the default recipe.
struct PairConditioning {
  double gain = 0;
  double extra = 0;
};
std::vector<PairConditioning> recipe_conditioning(const RopeScaling& r, double base, int d);

}  // namespace pev
