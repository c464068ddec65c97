#include "peverify/oracle/arb_agreement_testutil.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>

#include "peverify/encoding/format.h"
#include "peverify/oracle/arb_reference.h"
#include "peverify/oracle/recipe_testutil.h"
#include "peverify/oracle/test_rng.h"

namespace pev::oracle::agreement {
namespace {

using Rng = TestRng;

TableSpec sample_spec(Rng& rng) {
  TableSpec spec;
  constexpr double kBases[] = {1e4, 5e5, 1e6};
  spec.base = kBases[rng.below(3)];
  spec.schedule = rng.below(2) ? Schedule::kT2T : Schedule::kPaper;
  if (rng.below(2)) {
    spec.d_model = 2 * static_cast<int>(1 + rng.below(4096));
  } else {  // log-uniform: small models are as common as large ones
    spec.d_model = 2 * static_cast<int>(std::exp2(12.0 * rng.unit()));
  }
  if (spec.schedule == Schedule::kT2T && spec.d_model < 4) spec.d_model = 4;
  return spec;
}

uint64_t sample_position(Rng& rng) {
  constexpr uint64_t k24 = uint64_t{1} << 24, k40 = uint64_t{1} << 40;
  const uint64_t bucket = rng.below(20);
  if (bucket < 10) return static_cast<uint64_t>(std::exp2(40.0 * rng.unit()));  // log-uniform
  if (bucket < 14) return rng.below(4097);                                      // small
  if (bucket < 17) return k24 - 4096 + rng.below(8193);  // around float32's integer limit
  return k40 - rng.below(uint64_t{1} << 20);             // the top of the range
}

int sample_pair(Rng& rng, int d) {
  const uint64_t bucket = rng.below(8);
  if (bucket == 0) return 0;          // w = 1: the largest angles
  if (bucket == 1) return d / 2 - 1;  // the lowest frequency: the smallest values
  return static_cast<int>(rng.below(static_cast<uint64_t>(d / 2)));
}

std::string describe(const AgreementCase& c, Dtype target) {
  return fmt::format("{} d={} base={:.17g} schedule={} {} pos={} pair={}", name_of(target),
                     c.spec.d_model, c.spec.base, name_of(c.spec.schedule),
                     pev::describe(c.spec.rope), c.pos, c.pair);
}

// Compare encodings, not values: == would not tell +0 from -0.
void compare_one(const char* what, double oracle, uint64_t oracle_bits, double arb,
                 uint64_t arb_bits, std::string& out) {
  if (oracle_bits == arb_bits) return;
  out += fmt::format(" {}: oracle {:a} (0x{:x}) arb {:a} (0x{:x});", what, oracle, oracle_bits, arb,
                     arb_bits);
}

}  // namespace

std::vector<AgreementCase> sample_cases(uint64_t seed, int count, int cases_per_spec) {
  Rng rng(seed);
  std::vector<AgreementCase> cases;
  cases.reserve(static_cast<size_t>(count));
  TableSpec spec;
  for (int i = 0; i < count; ++i) {
    if (i % cases_per_spec == 0) spec = sample_spec(rng);
    cases.push_back({spec, sample_position(rng), sample_pair(rng, spec.d_model)});
  }
  return cases;
}

std::vector<AgreementCase> sample_recipe_cases(uint64_t seed, int count, int cases_per_spec) {
  Rng rng(seed);
  const int specs = (count + cases_per_spec - 1) / cases_per_spec;
  const std::vector<TableSpec> all = recipes::random_recipes(seed, specs);
  std::vector<AgreementCase> cases;
  cases.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const TableSpec& spec = all[static_cast<size_t>(i / cases_per_spec)];
    cases.push_back({spec, recipes::position_in(rng, i % recipes::kPositionRegions),
                     sample_pair(rng, spec.d_model)});
  }
  return cases;
}

std::optional<std::string> compare_with_arb(const Engine& engine, const AgreementCase& c,
                                            Dtype target) {
  TileValues v;
  engine.evaluate({c.pos, 1, c.pair, 1}, v);
  const ArbReference a = arb_reference(c.spec, c.pos, c.pair, target);
  std::string diff;
  compare_one("sin", v.sin_rounded[0], encode_exact(v.sin_rounded[0], target), a.sin_value,
              a.sin_bits, diff);
  compare_one("cos", v.cos_rounded[0], encode_exact(v.cos_rounded[0], target), a.cos_value,
              a.cos_bits, diff);
  if (target != Dtype::kFloat64) {  // for a float64 target the two pairs are the same values
    compare_one("sin f64", v.sin_exact[0], std::bit_cast<uint64_t>(v.sin_exact[0]), a.sin_f64,
                std::bit_cast<uint64_t>(a.sin_f64), diff);
    compare_one("cos f64", v.cos_exact[0], std::bit_cast<uint64_t>(v.cos_exact[0]), a.cos_f64,
                std::bit_cast<uint64_t>(a.cos_f64), diff);
  }
  if (diff.empty()) return std::nullopt;
  return describe(c, target) + diff;
}

AgreementSummary run_agreement(const std::vector<AgreementCase>& cases, Dtype target,
                               EngineKind kind) {
  constexpr size_t kShown = 20;
  AgreementSummary summary;
  std::unique_ptr<Engine> engine;
  const TableSpec* engine_spec = nullptr;
  for (const AgreementCase& c : cases) {
    const TableSpec& s = c.spec;
    if (!engine_spec || s.d_model != engine_spec->d_model || s.base != engine_spec->base ||
        s.schedule != engine_spec->schedule || s.rope != engine_spec->rope) {
      engine = make_engine(kind, s, target);
      engine_spec = &s;
    }
    summary.elements += 2;
    if (auto failure = compare_with_arb(*engine, c, target)) {
      ++summary.failure_count;
      if (summary.failures.size() < kShown) summary.failures.push_back(*failure);
    }
  }
  return summary;
}

int decided_rung(const Engine& engine, uint64_t pos, int pair, TileValues& values) {
  std::array<uint64_t, EngineStats::kRungs> before;
  for (int r = 0; r < EngineStats::kRungs; ++r)
    before[r] = engine.stats().decided_at_rung[r].load();
  engine.evaluate({pos, 1, pair, 1}, values);
  for (int r = 0; r < EngineStats::kRungs; ++r)
    if (engine.stats().decided_at_rung[r].load() != before[r]) return r;
  return -1;
}

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  return (*end == '\0' && v > 0) ? v : fallback;
}

}  // namespace pev::oracle::agreement
