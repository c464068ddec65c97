// Shared by the precise strategy's tests: its registry entries, and their worst error against the
// MPFR oracle over a block of rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "peverify/core/implementation.h"
#include "peverify/measure/error.h"

namespace pev::core::precise {

// cpu/precise/f64>{f32,f16,bf16}/hwy.
const Implementation& precise_entry(Dtype output);

struct WorstElement {
  double ulp = -1;  // ulp error at the exact value; infinity for NaN, Inf and wrong signs
  uint64_t pos = 0;
  int column = 0;
  double got = 0, exact = 0;
  measure::Category category = measure::Category::kNumber;
  uint64_t elements = 0;    // how many were measured
  uint64_t misrounded = 0;  // how many differ from the correctly rounded value
  void merge(const WorstElement& other);
};

// Fills rows spec.start .. spec.start + count - 1 with `impl` and measures every element against
// the oracle's exact value.
WorstElement worst_against_oracle(const Implementation& impl, const TableSpec& spec,
                                  uint64_t count);

// EXPECTs that the precise entry for `output` is faithful on rows spec.start .. + count - 1.
void expect_faithful(Dtype output, const TableSpec& spec, uint64_t count);

// The largest relative error of the double-double frequencies (frequencies.h) against the
// oracle's exact ones; EXPECTs each low part to be below an ulp of its high part.
double worst_frequency_error(const TableSpec& spec);

// "f32 d=512 base=10000 paper pos=355 dim=0 got=0x1.2p-22 exact=... (0.51 ulp)".
std::string describe(const Implementation& impl, const TableSpec& spec, const WorstElement& w);

// Block starts up to `limit` spread over a log scale (`per_octave` per factor of 2, from 16),
// plus starts just before and after anchor boundaries (multiples of the anchor interval).
std::vector<uint64_t> sample_starts(uint64_t limit, int per_octave, uint64_t block_rows);

}  // namespace pev::core::precise
