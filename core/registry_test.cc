// Every registry entry against the oracle, within the budget it claims (the default grid of the
// issue: d in {64, 512}, positions [0, 4096) and sampled blocks up to its valid range).
#include "core/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "core/generate.h"
#include "oracle/engine.h"
#include "oracle/error_measure.h"
#include "oracle/table.h"

namespace pev::core {
namespace {

struct Worst {
  double excess = -1;  // error / budget (or ulp for faithful claims)
  uint64_t pos = 0;
  int column = 0;
  double got = 0, exact = 0, budget = 0;
};

// Checks one block of rows; returns the worst element relative to the claim.
Worst check_block(const Implementation& impl, const TableSpec& spec, uint64_t count) {
  const GeneratedTable got = generate(impl, spec, count);
  const std::vector<double> exact = oracle::exact_values(spec, count);
  const double u = unit_roundoff(impl.compute);
  Worst worst;
  for (uint64_t r = 0; r < count; ++r) {
    const uint64_t pos = spec.start + r;
    for (int c = 0; c < got.width; ++c) {
      const size_t i = r * got.width + c;
      const Column col = column_at(spec, c);
      const FrequencyExponent e = frequency_exponent(spec, col.pair);
      const double angle = static_cast<double>(pos) *
                           std::pow(spec.base, static_cast<double>(e.numerator) / e.denominator);
      const double x = exact[i];
      const oracle::ElementError err = oracle::measure(got.value(i), x, impl.output, 0);
      // NaN and Inf break every claim; a wrong sign is judged by its numeric error.
      const bool number = err.category == oracle::ErrorCategory::kFinite ||
                          err.category == oracle::ErrorCategory::kSignMismatch;
      double excess = INFINITY, budget = 0;
      switch (impl.claim.kind) {
        case Claim::Kind::kModel:
          budget = oracle::model_budget(x, angle, static_cast<double>(impl.steps_since_direct(pos)),
                                        impl.output, impl.claim.c, u, impl.claim.output_ulps);
          if (number) excess = err.abs / budget;
          break;
        case Claim::Kind::kFaithful:
          if (number) excess = err.ulp;
          break;
        case Claim::Kind::kStrict:
          if (number) excess = 2 * err.ulp;
          break;
      }
      if (excess > worst.excess) worst = {excess, pos, c, got.value(i), x, budget};
    }
  }
  return worst;
}

std::string describe(const Worst& w, const TableSpec& spec) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "d=%d base=%g pos=%llu dim=%d got=%a exact=%a budget=%a (%.3g x)",
                spec.d_model, spec.base, static_cast<unsigned long long>(w.pos), w.column, w.got,
                w.exact, w.budget, w.excess);
  return buf;
}

// The claim is "< 1" for faithful ("< 1 ulp"), "<= 1" for the others (within the budget).
bool within(const Implementation& impl, double excess) {
  return impl.claim.kind == Claim::Kind::kFaithful ? excess < 1 : excess <= 1;
}

class RegistryEntry : public testing::TestWithParam<const Implementation*> {};

TEST_P(RegistryEntry, MeetsItsClaimAgainstTheOracle) {
  const Implementation& impl = *GetParam();
  if (impl.available && !impl.available()) GTEST_SKIP() << impl.unavailable_reason;
  for (const int d : {64, 512}) {
    for (const double base : {1e4, 5e5}) {
      if (base > impl.max_base) continue;
      TableSpec spec;
      spec.d_model = d;
      spec.base = base;
      const uint64_t rows = std::min<uint64_t>(d == 64 ? 4096 : 1024, impl.max_position + 1);
      const Worst w = check_block(impl, spec, rows);
      EXPECT_TRUE(within(impl, w.excess)) << describe(w, spec);
      // Sampled blocks on a log scale up to the valid range. The naive recurrence pays pos
      // steps per row, so it is sampled with the small d only.
      if (impl.strategy == Strategy::kRecurrence && d != 64) continue;
      for (uint64_t start = 5000; start + 8 <= impl.max_position + 1 && start < (1ull << 40);
           start = start * 7 + 13) {
        spec.start = start;
        const Worst ws = check_block(impl, spec, 8);
        EXPECT_TRUE(within(impl, ws.excess)) << describe(ws, spec);
      }
    }
  }
}

TEST(Registry, NamesAreUniqueAndSayWhatTheEntryIs) {
  std::set<std::string> names;
  for (const Implementation& e : registry()) {
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate " << e.name;
    EXPECT_EQ(
        e.name.rfind(std::string(name_of(e.device)) + "/" + std::string(name_of(e.strategy)), 0),
        0u)
        << e.name;
    EXPECT_NE(e.fill, nullptr) << e.name;
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_FALSE(e.flags.empty()) << e.name;
    EXPECT_EQ(find_implementation(e.name), &e);
  }
  EXPECT_EQ(find_implementation("cpu/nonsense/f32>f32/glibc"), nullptr);
}

TEST(Registry, EveryStrategyIsImplementedOnTheCpu) {
  std::set<Strategy> seen;
  for (const Implementation& e : registry())
    if (e.device == Device::kCpu) seen.insert(e.strategy);
  for (Strategy s : {Strategy::kPow, Strategy::kLogspace, Strategy::kRecurrence,
                     Strategy::kAnchored, Strategy::kPrecise})
    EXPECT_TRUE(seen.count(s)) << name_of(s);
}

// Layouts and start offsets select the same numbers: the halves layout is a permutation of the
// interleaved one, rotary caches are its columns, and a table at start s is rows s.. of one at 0.
TEST(Registry, LayoutsAndStartsAgreeForEveryEntry) {
  for (const Implementation& impl : registry()) {
    if (impl.available && !impl.available()) continue;
    // 512 exercises the full-width vector paths, 16 the tails.
    for (const int d : {16, 512}) {
      TableSpec a;
      a.d_model = d;
      a.base = 1e4;
      const GeneratedTable ta = generate(impl, a, 40);
      for (Layout l : {Layout::kHalves, Layout::kRopeCos, Layout::kRopeSin, Layout::kRopeCosDup,
                       Layout::kRopeSinDup}) {
        TableSpec b = a;
        b.layout = l;
        b.start = 17;
        const GeneratedTable tb = generate(impl, b, 23);
        for (uint64_t r = 0; r < 23; ++r)
          for (int c = 0; c < tb.width; ++c) {
            const Column col = column_at(b, c);
            const uint64_t ia = (r + 17) * d + 2 * col.pair + (col.is_sin ? 0 : 1);
            ASSERT_EQ(tb.bits(r * tb.width + c), ta.bits(ia))
                << impl.name << " d " << d << " layout " << name_of(l) << " row " << r << " col "
                << c;
          }
      }
    }
  }
}

std::vector<const Implementation*> all_entries() {
  std::vector<const Implementation*> v;
  for (const Implementation& e : registry()) v.push_back(&e);
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, RegistryEntry, testing::ValuesIn(all_entries()),
                         [](const testing::TestParamInfo<const Implementation*>& info) {
                           std::string n = info.param->name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace pev::core
