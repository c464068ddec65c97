// Implementations of the other sinusoidal tables (docs/features.md §16): diffusion timestep
// embeddings and multi-axis RoPE, computed as the frameworks compute them and by our precise
// strategy, in one list the study measures (reports/study/sinusoid_scores.h) and the crosscheck
// tests judge against the oracle. The Transformer's tables are core/registry.h's.
#pragma once

#include <string>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/sinusoids/table.h"

namespace pev::core {

struct SinusoidImplementation {
  std::string name;  // device/strategy/compute>output, e.g. cpu/diffusers-timestep/f32>f32
  std::string kind;  // the SinusoidTable::kind it builds, or "" for every kind
  Dtype compute = Dtype::kFloat32;
  Dtype output = Dtype::kFloat32;
  Claim claim;              // what every element is held to
  std::string description;  // one line: the real code it mirrors, with its file
  // Fills every row of `positions`, row-major, table.width() wide: float for float32 output,
  // double for float64, uint16 bit patterns for float16 and bfloat16. Safe to call concurrently.
  void (*fill)(const SinusoidImplementation& self, const SinusoidTable& table,
               const AxisPositions& positions, void* out) = nullptr;

  bool builds(const SinusoidTable& t) const { return kind.empty() || kind == t.kind; }
};

const std::vector<SinusoidImplementation>& sinusoid_registry();

// One value stored as `output` at index i of `out` (rounded once, to nearest even).
void store_value(Dtype output, size_t i, double value, void* out);

// The loop every entry shares: for each row, sin and cos of each frequency a column uses, from
// `sin_cos(frequency, x, &sin, &cos)` once per (row, frequency) (a table stores each twice or
// more: [sin | cos], rope-cos-pairs), stored in the columns' order; zero columns get +0.
template <class SinCos>
void fill_by_frequency(const SinusoidImplementation& self, const SinusoidTable& t,
                       const AxisPositions& p, void* out, SinCos sin_cos) {
  const size_t width = t.columns.size(), nf = t.frequencies.size();
  std::vector<double> s(nf), c(nf);
  std::vector<uint64_t> done(nf, ~uint64_t{0});  // the row each frequency was computed for
  for (uint64_t r = 0; r < p.rows(); ++r)
    for (size_t i = 0; i < width; ++i) {
      const SinusoidColumn& col = t.columns[i];
      double v = 0;
      if (col.wave != Wave::kZero) {
        const size_t f = static_cast<size_t>(col.frequency);
        if (done[f] != r) {  // frequencies are per axis: one axis's position per frequency
          sin_cos(col.frequency, p.axes[static_cast<size_t>(col.axis)][r], s[f], c[f]);
          done[f] = r;
        }
        v = col.wave == Wave::kSin ? s[f] : c[f];
      }
      store_value(self.output, r * width + i, v, out);
    }
}

// Per-target entries' lists (each file adds its own), gathered by sinusoid_registry().
std::vector<SinusoidImplementation> framework_sinusoid_entries();
std::vector<SinusoidImplementation> precise_sinusoid_entries();

}  // namespace pev::core
