// Every registry entry against the oracle, within the claim it makes (d in {64, 512}, positions
// [0, 4096) and sampled blocks up to its valid range).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/generate.h"
#include "core/registry.h"
#include "measure/judge.h"
#include "oracle/table.h"

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
      "d={} base={:g}: {} of {} elements outside the claim ({} NaN, {} Inf); worst "
      "{:.3g} x the budget at pos={} dim={}",
      spec.d_model, spec.base, f.over_claim, f.elements, f.nan, f.inf, f.worst_fraction,
      f.worst_pos, f.worst_column);
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
