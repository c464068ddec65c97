// The exact rotation a RoPE kernel applies (encoding/rotation.h; docs/mathematics.md §6.1): for
// each token, head and pair j with dims (a, b) = rotated_dims(spec, j), at the position p its
// stream gives (RowPositions::of_pair, so M-RoPE pairs take their own stream's),
//   out_a = x_a C - x_b S,   out_b = x_b C + x_a S,   C = A cos(p w_j), S = A sin(p w_j),
// with w_j and A the recipe's exact reals, written at output_dims(spec, j) (the input's dims
// unless spec.output_pairs says otherwise, as DeepSeek's). Every output element is given as its
// exact value rounded once to float64, and rounded once to the target format (nearest even,
// subnormals, overflow to an infinity); dims >= the rotary dimension pass through (the input,
// exact, and the input rounded once to the target). An exact zero is +0. Both engines give the same
// bits.
//
// Usage:
//   RotationOracle oracle(rotation_spec, Dtype::kBFloat16, EngineKind::kFast);
//   RotatedValues out;  // [n][heads][head_dim], like x
//   oracle.rotate(positions, tokens.data(), tokens.size(), heads, x.data(), out);
//   // out.exact[i], out.rounded[i]; oracle.stats() counts the fast engine's hand-offs.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "peverify/encoding/positions.h"
#include "peverify/encoding/rotation.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle {

struct RotatedValues {
  std::vector<double> exact;    // the exact value rounded to float64
  std::vector<double> rounded;  // rounded to the target, widened to double (exact)
};

// Rotated elements (pass-through dims not counted) and those the fast engine's bound left to MPFR.
struct RotationStats {
  std::atomic<uint64_t> rotated{0}, handed_off{0};
};

class RotationOracle {
 public:
  // spec passes validate(const RotationSpec&); its table carries the recipe and, for recipes that
  // depend on it, the sequence length (set_sequence_length). Throws std::invalid_argument else.
  RotationOracle(const RotationSpec& spec, Dtype target, EngineKind kind);
  ~RotationOracle();

  // x: n tokens x heads x head_dim inputs (the stored values widened to double; the rotated dims
  // finite, else std::invalid_argument); token i sits at row tokens[i] of `positions`. out is
  // resized to x's size. Safe to call concurrently.
  void rotate(const RowPositions& positions, const uint64_t* tokens, uint64_t n, int heads,
              const double* x, RotatedValues& out) const;

  const RotationStats& stats() const { return stats_; }
  const RotationSpec& spec() const { return spec_; }

 private:
  struct Engines;
  struct Scratch;
  void cos_sin(Scratch& t) const;
  uint64_t rotate_head(const double* row, Scratch& t, double* exact, double* rounded) const;

  RotationSpec spec_;
  Dtype target_;
  EngineKind kind_;
  std::unique_ptr<const Engines> engines_;
  mutable RotationStats stats_;
};

}  // namespace pev::oracle
