// The other sinusoidal tables models build (docs/features.md §16): diffusion timestep embeddings
// and RoPE over several position axes (images, video). Each compiles to one description, column by
// column, which the oracle evaluates and verify judges: column c of row r is
//   sin or cos (scale * x * w), x = row r's position on the column's axis, w = base^(num/den),
// or an exact zero (the pad of an odd width). Positions are any real number a file stores: a
// timestep of 0.5, Flux's float ids, Qwen-Image's negative centred grids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pev {

// w = base^(numerator / denominator), the exponent an exact rational: every frequency ladder these
// tables use (diffusers' exp(-ln(P) k / (h - s)) is P^(-k/(h - s)); an axis of d_i columns has
// theta^(-2j/d_i)).
struct SinusoidFrequency {
  double base = 10000;
  int64_t numerator = 0;
  int64_t denominator = 1;
  double value() const;  // in double, for budgets and descriptions
};

enum class Wave : uint8_t { kSin, kCos, kZero };

struct SinusoidColumn {
  Wave wave = Wave::kSin;
  int axis = 0;       // which position of the row the angle is of
  int frequency = 0;  // index into SinusoidTable::frequencies
};

struct SinusoidTable {
  std::string kind;  // "timestep embedding", "multi-axis RoPE": how verdicts name the table
  std::vector<SinusoidFrequency> frequencies;
  std::vector<SinusoidColumn> columns;  // one per column of a row
  int axes = 1;                         // positions per row
  double scale = 1;  // the angle is scale * (x * w): diffusers' `scale`, applied after t * f
  int width() const { return static_cast<int>(columns.size()); }
};

// Positions of each row: axes[a][r] is row r's position on axis a, each the exact value of the
// number stored.
struct AxisPositions {
  std::vector<std::vector<double>> axes;
  uint64_t rows() const { return axes.empty() ? 0 : axes[0].size(); }
};

}  // namespace pev
