// Every registry entry against the oracle, within the claim it makes: plain tables (d in {64,
// 512}, positions [0, 4096) and sampled blocks up to its valid range), and the rotary caches of
// real models, every recipe (encoding/rope_models_testutil.h), whose known honest failures are
// crosscheck/expectations.tsv's rules for the property "recipes", asserted both ways.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "peverify/core/generate.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry.h"
#include "peverify/crosscheck/expectations_testutil.h"
#include "peverify/encoding/rope_models_testutil.h"
#include "peverify/measure/judge.h"
#include "peverify/oracle/table.h"

namespace pev::core {
namespace {

// Every element of one block against the claim.
measure::Figures measure_block(const Implementation& impl, const TableSpec& spec, uint64_t count) {
  const GeneratedTable got = generate(impl, spec, count);
  const std::vector<double> exact = oracle::exact_values(spec, count);
  std::vector<double> row(got.width);
  const measure::Judge judge(spec, impl.claim, impl.output);
  measure::Figures f;
  for (uint64_t r = 0; r < count; ++r) {
    for (int c = 0; c < got.width; ++c) row[c] = got.value(r * got.width + c);
    const uint64_t pos = spec.start + r;
    judge.add_row(pos, static_cast<double>(impl.steps_since_direct(pos)), row.data(),
                  exact.data() + r * got.width, f);
  }
  return f;
}

std::string describe(const measure::Figures& f, const TableSpec& spec) {
  return fmt::format(
      "d={} base={:g} {}: {} of {} elements outside the claim ({} NaN, {} Inf); worst "
      "{:.3g} x the budget at pos={} dim={}",
      spec.d_model, spec.base, describe(spec.rope), f.over_claim, f.elements, f.nan, f.inf,
      f.worst_fraction, f.worst_pos, f.worst_column);
}

class RegistryEntry : public testing::TestWithParam<const Implementation*> {};

TEST_P(RegistryEntry, MeetsItsClaimAgainstTheOracle) {
  const Implementation& impl = *GetParam();
  if (impl.available && !impl.available()) GTEST_SKIP() << impl.unavailable_reason;
  int tables = 0, blocks = 0;
  for (const int d : {64, 512}) {
    for (const double base : {1e4, 5e5}) {
      if (base > impl.max_base) continue;
      ++tables;
      TableSpec spec;
      spec.d_model = d;
      spec.base = base;
      const uint64_t rows = std::min<uint64_t>(d == 64 ? 4096 : 1024, impl.max_position + 1);
      const measure::Figures f = measure_block(impl, spec, rows);
      EXPECT_EQ(f.over_claim, 0u) << describe(f, spec);
      // Sampled blocks on a log scale up to the valid range. The naive recurrence pays pos
      // steps per row, so it is sampled with the small d only.
      if (impl.strategy == Strategy::kRecurrence && d != 64) continue;
      for (uint64_t start = 5000; start + 8 <= impl.max_position + 1 && start < (1ull << 40);
           start = start * 7 + 13) {
        spec.start = start;
        const measure::Figures fs = measure_block(impl, spec, 8);
        EXPECT_EQ(fs.over_claim, 0u) << "start " << start << ": " << describe(fs, spec);
        ++blocks;
      }
    }
  }
  // Every entry takes base 1e4: d 64 and 512 at least; and blocks from 5000 on where it reaches.
  EXPECT_GE(tables, 2) << impl.name << ": plain tables judged";
  if (impl.max_position >= 5007) {
    EXPECT_GT(blocks, 0) << impl.name << ": sampled blocks judged";
  }
}

// The caches a model's users build: every position of a prefix, and blocks at the pretrained
// context L0 (where llama3's and yarn's scaled frequencies first turn), at 2^15 and at the
// long contexts the recipes exist for (2^17), as far as the entry's range goes.
TEST_P(RegistryEntry, BuildsRealModelCachesWithinItsClaim) {
  const Implementation& impl = *GetParam();
  if (impl.available && !impl.available()) GTEST_SKIP() << impl.unavailable_reason;
  const properties::Expectation expected = crosscheck::expectations_for(
      impl.name, crosscheck::read_expectation_rules("crosscheck/expectations.tsv"))["recipes"];
  measure::Figures all;
  int caches = 0;
  std::string failures;
  for (const models::RopeModel& m : models::every_rope_model()) {
    const RopeScaling& r = m.model.rope;
    const uint64_t context = r.original_max_position ? r.original_max_position
                             : r.max_position        ? r.max_position
                                                     : 4096;
    for (const uint64_t start :
         {uint64_t{0}, context - 4, uint64_t{1} << 15, (uint64_t{1} << 17) - 8}) {
      const uint64_t rows = start == 0 ? 512 : 8;
      const TableSpec spec = spec_of(m.model, Layout::kRopeCosSin, start, rows);
      if (start + rows - 1 > impl.max_position || !claims_frequencies(impl, spec)) continue;
      const measure::Figures f = measure_block(impl, spec, rows);
      ++caches;
      all.merge(f);
      if (f.over_claim) failures += "\n  " + m.name + ": " + describe(f, spec);
    }
  }
  ASSERT_GT(caches, 0) << impl.name << ": no model's cache in its range and claim";
  if (expected.holds) {
    EXPECT_EQ(all.over_claim, 0u) << failures;
  } else {
    EXPECT_GT(all.over_claim, 0u) << "expected to fail (" << expected.reason << ") but holds";
  }
  fmt::print("{}: {} elements, worst {:.3g} x the budget{}\n", impl.name, all.elements,
             all.worst_fraction, failures);
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
