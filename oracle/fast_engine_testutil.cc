#include "peverify/oracle/fast_engine_testutil.h"

#include <fmt/format.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>

#include "peverify/encoding/format.h"
#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/recipe_testutil.h"
#include "peverify/oracle/table.h"
#include "peverify/oracle/test_rng.h"
#include "peverify/support/parallel.h"

namespace pev::oracle::fastcheck {
namespace {

constexpr size_t kShown = 10;

using Rng = TestRng;

TableSpec random_spec(Rng& rng) {
  TableSpec spec;
  spec.schedule = rng.below(2) ? Schedule::kT2T : Schedule::kPaper;
  spec.d_model = rng.below(2) ? 2 * static_cast<int>(1 + rng.below(4096))
                              : 2 * static_cast<int>(std::exp2(12.0 * rng.unit()));
  if (spec.schedule == Schedule::kT2T && spec.d_model < 4) spec.d_model = 4;
  switch (rng.below(6)) {
    case 0:
    case 1: {
      constexpr double kCommon[] = {1e4, 5e5, 1e6, 10000.5, 500000.0 / 3};
      spec.base = kCommon[rng.below(5)];
      break;
    }
    case 2:  // powers of two: frequencies that are exact binary fractions (structured cases)
      spec.base = std::exp2(static_cast<double>(1 + rng.below(40)));
      break;
    case 3:  // close to 1: every frequency near 1
      spec.base = 1.0 + std::exp2(-1.0 - 40.0 * rng.unit());
      break;
    default:  // log-uniform over [2, 2^64]
      spec.base = std::exp2(1.0 + 63.0 * rng.unit());
  }
  return spec;
}

uint64_t random_position(Rng& rng) {
  constexpr uint64_t k24 = uint64_t{1} << 24, k40 = uint64_t{1} << 40;
  const uint64_t bucket = rng.below(20);
  if (bucket < 10) return 1 + static_cast<uint64_t>(std::exp2(53.0 * rng.unit()) - 1.0);
  if (bucket < 13) return rng.below(4097);
  if (bucket < 15) return k24 - 4096 + rng.below(8193);
  if (bucket < 17) return k40 - rng.below(uint64_t{1} << 20);
  return kMaxPosition - rng.below(uint64_t{1} << 20);
}

std::string describe(const TableSpec& spec, uint64_t pos, int pair, Dtype target) {
  return fmt::format("{} d={} base={:a} schedule={} {} pos={} pair={}", name_of(target),
                     spec.d_model, spec.base, name_of(spec.schedule), pev::describe(spec.rope), pos,
                     pair);
}

void compare_value(const char* what, double got, double want, Dtype t, std::string& diff) {
  const uint64_t g = encode_exact(got, t), w = encode_exact(want, t);
  if (g == w) return;
  diff += fmt::format(" {}: fast {:a} (0x{:x}) mpfr {:a} (0x{:x});", what, got, g, want, w);
}

}  // namespace

std::string shown(const Mismatches& m) {
  std::string s;
  for (const std::string& line : m.shown) s += "\n  " + line;
  return s;
}

void Mismatches::merge(const Mismatches& other) {
  elements += other.elements;
  count += other.count;
  for (const std::string& s : other.shown)
    if (shown.size() < kShown) shown.push_back(s);
}

void compare_tile(const Engine& candidate, const Engine& reference, const TableSpec& spec,
                  const Tile& tile, Dtype target, Mismatches& m) {
  TileValues got, want;
  candidate.evaluate(tile, got);
  reference.evaluate(tile, want);
  size_t i = 0;
  for (int r = 0; r < tile.position_count; ++r)
    for (int k = 0; k < tile.pair_count; ++k, ++i) {
      std::string diff;
      compare_value("sin", got.sin_rounded[i], want.sin_rounded[i], target, diff);
      compare_value("cos", got.cos_rounded[i], want.cos_rounded[i], target, diff);
      compare_value("sin f64", got.sin_exact[i], want.sin_exact[i], Dtype::kFloat64, diff);
      compare_value("cos f64", got.cos_exact[i], want.cos_exact[i], Dtype::kFloat64, diff);
      ++m.elements;
      if (diff.empty()) continue;
      ++m.count;
      if (m.shown.size() < kShown)
        m.shown.push_back(describe(spec, tile.first_position + r, tile.first_pair + k, target) +
                          diff);
    }
}

std::vector<RandomTile> random_tiles(uint64_t seed, uint64_t elements, int positions_per_tile,
                                     int max_pairs) {
  Rng rng(seed);
  std::vector<RandomTile> out;
  for (uint64_t n = 0; n < elements;
       n += out.back().positions.size() * out.back().tile.pair_count) {
    RandomTile& t = out.emplace_back();
    t.spec = random_spec(rng);
    const int pairs = t.spec.d_model / 2;
    t.tile.pair_count =
        static_cast<int>(1 + rng.below(static_cast<uint64_t>(std::min(pairs, max_pairs))));
    t.tile.first_pair =
        static_cast<int>(rng.below(static_cast<uint64_t>(pairs - t.tile.pair_count + 1)));
    t.tile.position_count = 1;
    for (int p = 0; p < positions_per_tile; ++p) t.positions.push_back(random_position(rng));
  }
  return out;
}

Mismatches compare_random(const std::vector<RandomTile>& tiles, Dtype target,
                          uint64_t* handed_off) {
  Mismatches total;
  uint64_t handed = 0;
  std::mutex mutex;
  parallel_for(tiles.size(), 0, [&](uint64_t i) {
    const RandomTile& t = tiles[i];
    const auto fast = make_fast_engine(t.spec, target);
    const auto mpfr = make_mpfr_engine(t.spec, target);
    Mismatches m;
    for (const uint64_t pos : t.positions) {
      Tile tile = t.tile;
      tile.first_position = pos;
      compare_tile(*fast, *mpfr, t.spec, tile, target, m);
    }
    std::lock_guard lock(mutex);
    total.merge(m);
    handed += fast->stats().handed_off.load();
  });
  if (handed_off) *handed_off = handed;
  return total;
}

Mismatches compare_tables(const TableSpec& spec, uint64_t rows, Dtype dtype) {
  const auto fast = make_fast_engine(spec, dtype);
  const auto mpfr = make_mpfr_engine(spec, dtype);
  const ExactTable a = compute_table(*fast, spec, rows);
  const ExactTable b = compute_table(*mpfr, spec, rows);
  Mismatches m;
  for (size_t i = 0; i < a.rounded.size(); ++i) {
    ++m.elements;
    if (encode_exact(a.rounded[i], dtype) == encode_exact(b.rounded[i], dtype) &&
        std::bit_cast<uint64_t>(a.exact[i]) == std::bit_cast<uint64_t>(b.exact[i]))
      continue;
    ++m.count;
    if (m.shown.size() < kShown)
      m.shown.push_back(fmt::format("{} pos {} column {}: fast {:a} / {:a}, mpfr {:a} / {:a}",
                                    describe(spec, spec.start + i / a.width, 0, dtype),
                                    spec.start + i / a.width, i % a.width, a.rounded[i], a.exact[i],
                                    b.rounded[i], b.exact[i]));
  }
  return m;
}

Mismatches compare_recipes(uint64_t seed, int specs, int positions_per_region, Dtype target,
                           uint64_t* handed_off) {
  const std::vector<TableSpec> all = recipes::random_recipes(seed, specs);
  Mismatches total;
  uint64_t handed = 0;
  std::mutex mutex;
  parallel_for(all.size(), 0, [&](uint64_t i) {
    const TableSpec& spec = all[i];
    const auto fast = make_fast_engine(spec, target);
    const auto mpfr = make_mpfr_engine(spec, target);
    Rng rng(seed ^ (i * 0x9e3779b97f4a7c15));
    Mismatches m;
    for (int region = 0; region < recipes::kPositionRegions; ++region)
      for (int p = 0; p < positions_per_region; ++p)
        compare_tile(*fast, *mpfr, spec,
                     {recipes::position_in(rng, region), 1, 0, spec.d_model / 2}, target, m);
    std::lock_guard lock(mutex);
    total.merge(m);
    handed += fast->stats().handed_off.load();
  });
  if (handed_off) *handed_off = handed;
  return total;
}

std::vector<HardCase> read_hard_cases(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot open " + path + " (tests run from the repository root)";
    return {};
  }
  std::vector<HardCase> cases;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#' || line.rfind("d_model", 0) == 0) continue;
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string s; std::getline(fields, s, '\t');) f.push_back(s);
    const auto schedule = f.size() == 10 ? parse_schedule(f[2]) : std::nullopt;
    const auto dtype = f.size() == 10 ? parse_dtype(f[6]) : std::nullopt;
    if (!schedule || !dtype || (f[5] != "sin" && f[5] != "cos")) {
      error = path + ":" + std::to_string(n) + ": malformed row: " + line;
      return {};
    }
    HardCase c;
    c.line = n;
    c.spec.d_model = std::stoi(f[0]);
    c.spec.base = std::strtod(f[1].c_str(), nullptr);  // decimal or hex-float, both exact
    c.spec.schedule = *schedule;
    c.pos = std::stoull(f[3]);
    c.pair = std::stoi(f[4]);
    c.is_sin = f[5] == "sin";
    c.dtype = *dtype;
    c.expected_bits = std::stoull(f[7], nullptr, 16);
    c.text = path + ":" + std::to_string(n) + ": " + line;
    cases.push_back(c);
  }
  return cases;
}

std::vector<uint64_t> half_pi_convergents(const TableSpec& spec, int pair) {
  const Frequencies f(spec);
  mpfr_t x, floor;
  mpfr_inits2(600, x, floor, static_cast<mpfr_ptr>(nullptr));
  mpfr_const_pi(x, MPFR_RNDN);
  f.compute(pair, 600, floor);
  mpfr_div(x, x, floor, MPFR_RNDN);
  mpfr_div_2ui(x, x, 1, MPFR_RNDN);
  std::vector<uint64_t> out;
  long double p_prev = 1, p = 0;  // numerators p_{-1}, p_{-2}
  for (int n = 0; n < 60; ++n) {
    mpfr_floor(floor, x);
    const long double next = mpfr_get_d(floor, MPFR_RNDN) * p_prev + p;
    if (next > 0x1p53L) break;
    p = p_prev;
    p_prev = next;
    out.push_back(static_cast<uint64_t>(next));
    mpfr_sub(x, x, floor, MPFR_RNDN);
    if (mpfr_zero_p(x)) break;
    mpfr_ui_div(x, 1, x, MPFR_RNDN);
  }
  mpfr_clears(x, floor, static_cast<mpfr_ptr>(nullptr));
  return out;
}

}  // namespace pev::oracle::fastcheck
