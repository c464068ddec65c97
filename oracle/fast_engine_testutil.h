// What the fast engine's tests share: bit-for-bit comparison of two engines on a tile, a random
// case generator over the whole domain (any d, base, schedule, positions up to 2^53), and a
// reader for oracle/testdata/hard_cases.tsv.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle::fastcheck {

struct Mismatches {
  uint64_t elements = 0;           // (position, pair) elements compared, four values each
  uint64_t count = 0;              // elements whose four values are not all bit-identical
  std::vector<std::string> shown;  // the first few, replayable (%a values, bit patterns)
  void merge(const Mismatches& other);
};

// The shown mismatches, one per line, for a failure message.
std::string shown(const Mismatches& m);

// Evaluates `tile` with both engines and compares sin and cos, rounded to `target` and to float64,
// by bit pattern (so +0 and -0 differ). Adds to `m`.
void compare_tile(const Engine& candidate, const Engine& reference, const TableSpec& spec,
                  const Tile& tile, Dtype target, Mismatches& m);

// Specs with a tile each: positions log-uniform over [1, 2^53] and at the edges that matter (small,
// around 2^24, 2^40 and 2^53), pairs a contiguous run. Deterministic for a seed on every platform.
struct RandomTile {
  TableSpec spec;
  Tile tile;  // one position per row; first_position is unused (see positions)
  std::vector<uint64_t> positions;
};
// As many as it takes to hold at least `elements` elements.
std::vector<RandomTile> random_tiles(uint64_t seed, uint64_t elements, int positions_per_tile,
                                     int max_pairs);

// Runs compare_tile over every RandomTile (one engine pair per spec, specs spread over threads).
Mismatches compare_random(const std::vector<RandomTile>& tiles, Dtype target,
                          uint64_t* handed_off = nullptr);

// Whole tables (spec.start, `rows` rows, spec's layout) from both engines, every element's two
// values by bits.
Mismatches compare_tables(const TableSpec& spec, uint64_t rows, Dtype dtype);

// `specs` random recipes (recipe_testutil.h) with `positions_per_region` rows of every pair in
// each of the four position regions (small, near 2^20, above 2^20, near 2^40), specs spread over
// threads.
Mismatches compare_recipes(uint64_t seed, int specs, int positions_per_region, Dtype target,
                           uint64_t* handed_off = nullptr);

// Positions p whose angle p w_pair lies closest to a multiple of pi/2 (the numerators of the
// continued fraction of pi / (2 w), from MPFR at 600 bits), up to 2^53: where sin or cos of the
// angle is tiniest, and a reduction's or a rotation's error is largest against the value.
std::vector<uint64_t> half_pi_convergents(const TableSpec& spec, int pair);

struct HardCase {
  int line = 0;
  TableSpec spec;
  uint64_t pos = 0;
  int pair = 0;
  bool is_sin = true;
  Dtype dtype = Dtype::kFloat32;
  uint64_t expected_bits = 0;  // Arb's, recorded in the file
  std::string text;            // the row as written
};
// The rows of the file (path relative to the repository root); empty with `error` set if it
// cannot be read or a row is malformed.
std::vector<HardCase> read_hard_cases(const std::string& path, std::string& error);

}  // namespace pev::oracle::fastcheck
