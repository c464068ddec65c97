// What the sampled and the exhaustive agreement tests share: the case generator over the real
// domain, one element's comparison of the MPFR engine with the Arb reference, and a view of which
// rung of the engine's ladder decided an element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle::agreement {

struct AgreementCase {
  TableSpec spec;
  uint64_t pos = 0;
  int pair = 0;
};

// Deterministic for a seed on every platform (no std:: distributions). Specs come in groups of
// `cases_per_spec` cases, since an engine computes all d/2 frequencies when it is built.
// d even in [2, 8192] (half uniform, half log-uniform), base in {1e4, 5e5, 1e6}, paper or t2t
// (t2t with d >= 4); pair 0, the last pair or uniform; pos log-uniform up to 2^40, small, near
// 2^24 and just below 2^40.
std::vector<AgreementCase> sample_cases(uint64_t seed, int count, int cases_per_spec);

// Random rotary recipes around real models (recipe_testutil.h), `cases_per_spec` cases each: pair
// 0, the last or uniform; positions from the four regions (small, near 2^20, above 2^20, near
// 2^40) in turn.
std::vector<AgreementCase> sample_recipe_cases(uint64_t seed, int count, int cases_per_spec);

// Evaluates the element with `engine` (built for c.spec and `target`) and with Arb; empty when
// sin and cos agree bit for bit in the target format and in float64, else a replayable
// description with %a values and bit patterns.
std::optional<std::string> compare_with_arb(const Engine& engine, const AgreementCase& c,
                                            Dtype target);

struct AgreementSummary {
  uint64_t elements = 0;              // sin and cos values compared
  std::vector<std::string> failures;  // the first few, for the test's message
  uint64_t failure_count = 0;
};
// Runs compare_with_arb over `cases`, one engine per group of equal specs.
AgreementSummary run_agreement(const std::vector<AgreementCase>& cases, Dtype target,
                               EngineKind kind = EngineKind::kMpfr);

// The rung of engine's precision ladder that decided (pos, pair), observed through its stats
// (so not thread-safe with other evaluations on the same engine); -1 if none moved.
int decided_rung(const Engine& engine, uint64_t pos, int pair, TileValues& values);

// Positive integer from an environment variable, or `fallback` when unset or malformed.
uint64_t env_or(const char* name, uint64_t fallback);

}  // namespace pev::oracle::agreement
