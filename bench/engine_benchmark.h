// Both engines measured on the same elements in one run: what `peverify bench --oracle` reports
// (oracle.speedup and the hand-off rate) and what bench/oracle_benchmark.cc prints beside its
// per-engine benchmarks.
#pragma once

#include <cstdint>
#include <string>

#include "peverify/encoding/spec.h"

namespace pev::bench {

struct EngineComparison {
  // Values (a sin or a cos, rounded to the target and to float64) per second of one thread's CPU
  // time: the medians over the rounds.
  double mpfr_values_per_s = 0;
  double fast_values_per_s = 0;
  double speedup = 0;  // fast / mpfr
  // Elements the fast engine handed to MPFR, over the elements it evaluated.
  double handoff_rate = 0;
  uint64_t fast_elements = 0;
  uint64_t handed_off = 0;
  int rounds = 0;
  std::string fast_target;  // the SIMD target the fast engine dispatched to, e.g. "AVX3"
};

// Evaluates tiles of 16 positions x all pairs, cycling over positions spec.start ..
// spec.start + positions - 1, with the MPFR engine and the fast engine built for (spec, dtype), on
// the calling thread. The engines alternate in rounds (so a change in machine load hits both)
// until about `seconds` have passed, at least 3 rounds; each round gives each engine about the
// same time. Throws std::invalid_argument for an invalid spec or range.
EngineComparison compare_engines(const TableSpec& spec, Dtype dtype, uint64_t positions,
                                 double seconds);

}  // namespace pev::bench
