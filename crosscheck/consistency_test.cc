// The consistency verdict's two figures (docs/mathematics.md §4.1), measured on honest tables of
// the registry: no false alarm on any entry's tables (every output type, the layouts and recipes
// the study covers, positions past 131072), and the rate at which single corrupted elements are
// caught. Framework-built tables (numpy, PyTorch, Hugging Face) are python/tests'.
#include "peverify/measure/consistency.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "peverify/adapters/table_entry.h"
#include "peverify/core/convert.h"
#include "peverify/core/generate.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry.h"
#include "peverify/encoding/rope_models_testutil.h"
#include "peverify/measure/judge.h"
#include "peverify/oracle/table.h"
#include "peverify/properties/consistent.h"

namespace pev::core {
namespace {

struct Case {
  std::string name;
  TableSpec spec;
  uint64_t rows;
};

TableSpec plain(int d, Layout layout, uint64_t start) {
  TableSpec s;
  s.d_model = d;
  s.layout = layout;
  s.start = start;
  return s;
}

// The study's plain grids and every recipe's cache, near position 0 and past 131072.
std::vector<Case> cases() {
  std::vector<Case> c = {
      {"d512 interleaved from 0", plain(512, Layout::kInterleaved, 0), 4096},
      {"d128 interleaved from 129024", plain(128, Layout::kInterleaved, 129024), 4096},
      {"d1024 halves from 16000", plain(1024, Layout::kHalves, 16000), 2048},
      {"d512 base 5e5 from 2^20", plain(512, Layout::kInterleaved, 1 << 20), 1024},
      {"d64 polar from 60000", plain(64, Layout::kPolar, 60000), 2048}};
  c[3].spec.base = 5e5;
  for (const models::RopeModel& m : models::every_rope_model()) {
    c.push_back(
        {m.name + " rope-cos-sin from 0", spec_of(m.model, Layout::kRopeCosSin, 0, 2048), 2048});
    c.push_back({m.name + " rope-cos-dup from 129024",
                 spec_of(m.model, Layout::kRopeCosDup, 129024, 2048), 2048});
  }
  return c;
}

class Consistency : public testing::TestWithParam<const Implementation*> {};

TEST_P(Consistency, NoFalseAlarmOnHonestTables) {
  const Implementation& impl = *GetParam();
  if (impl.available && !impl.available()) GTEST_SKIP() << impl.unavailable_reason;
  const auto ut = adapters::registry_entry(impl);
  std::vector<Case> in_range;
  for (const Case& c : cases())
    if (c.spec.start + c.rows - 1 <= impl.max_position && c.spec.base <= impl.max_base &&
        claims_frequencies(impl, c.spec) && ut->can_produce(c.spec, c.rows))
      in_range.push_back(c);
  // The naive bfloat16 recurrence is valid to position 1024 only: every case is longer.
  if (in_range.empty())
    GTEST_SKIP() << impl.name << " (valid to position " << impl.max_position
                 << "): none of the cases is within its range";
  double worst = 0;
  uint64_t elements = 0;
  for (const Case& c : in_range) {
    const properties::PropertyVerdict v = properties::check_consistent(*ut, c.spec, c.rows);
    EXPECT_TRUE(v.holds) << c.name << ": " << v.summary;
    EXPECT_GT(v.checked, 0u) << c.name << ": no element checked";
    worst = std::max(worst, v.figures.at("worst_ratio"));
    elements += v.checked;
  }
  fmt::print("{}: {} cases, {} elements, largest error / envelope {:.3g} (fails above {:g})\n",
             impl.name, in_range.size(), elements, worst, claim_constants().consistency.factor);
}

std::vector<const Implementation*> cpu_entries() {
  std::vector<const Implementation*> v;
  for (const Implementation& e : registry())
    if (e.device == Device::kCpu) v.push_back(&e);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Registry, Consistency, testing::ValuesIn(cpu_entries()),
                         [](const testing::TestParamInfo<const Implementation*>& info) {
                           std::string n = info.param->name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// The stored value nearest to v, as the table's format holds it.
double stored(double v, Dtype t) {
  switch (t) {
    case Dtype::kFloat16:
      return f32_from_f16(f16_from_f64(v));
    case Dtype::kBFloat16:
      return f32_from_bf16(bf16_from_f64(v));
    case Dtype::kFloat32:
      return static_cast<float>(v);
    case Dtype::kFloat64:
      break;
  }
  return v;
}

struct Rates {
  int trials = 0, caught[3] = {0, 0, 0}, flips = 0, flips_caught = 0;
  // Trials where the model budget (C = 32, float32) is vacuous, and those caught at 8x there.
  int vacuous = 0, vacuous_caught = 0;
};

// Whether the check names row `row` of one column (`got` and `exact` that column's values): the
// columns are judged apart, so the column alone around the row gives the table's verdict, as
// long as the rows given reach the row's window (or the table's end).
bool caught(const std::vector<double>& got, const std::vector<double>& exact, const Case& c,
            Dtype output, uint64_t row) {
  const uint64_t g = static_cast<uint64_t>(measure::ConsistencyRun::group_rows());
  const uint64_t reach =
      g * (2 * static_cast<uint64_t>(measure::ConsistencyRun::groups_each_side()) + 2);
  const uint64_t first = row > reach ? (row - reach) / g * g : 0;
  const uint64_t end = std::min<uint64_t>(c.rows, row + reach);
  measure::ConsistencyRun run(output, 1, first, c.spec.start);
  run.add(got.data() + first, exact.data() + first, end - first, true);
  run.finish();
  for (const measure::Finding& f : run.figures().worst)
    if (f.pos == c.spec.start + row) return true;
  return false;
}

// Single elements perturbed by 4, 8 and 16 times the column's honest error around them (the
// largest within 32 rows either side; at least 16 ulps of a float32 output, 4 of a 16-bit one),
// and sign flips of elements larger than what the check allows them.
TEST(ConsistencyCatchRate, SingleElementCorruptions) {
  const std::vector<std::string> entries = {
      "cpu/pow/f32>f32/sleef-u10",  "cpu/logspace/f32>f32/glibc", "cpu/pow/f32>f16/sleef-u10",
      "cpu/logspace/f32>f16/glibc", "cpu/pow/f32>bf16/sleef-u10", "cpu/logspace/f32>bf16/glibc"};
  const ClaimConstants::Consistency& rule = claim_constants().consistency;
  std::mt19937_64 rng(2511);
  std::map<Dtype, Rates> rates;
  for (const std::string& name : entries) {
    const Implementation& impl = *find_implementation(name);
    for (const Case& c : cases()) {
      if (!claims_frequencies(impl, c.spec) || c.spec.base > impl.max_base) continue;
      const int width = table_width(c.spec);
      const GeneratedTable t = generate(impl, c.spec, c.rows);
      std::vector<double> got(c.rows * static_cast<uint64_t>(width));
      for (size_t i = 0; i < got.size(); ++i) got[i] = t.value(i);
      const std::vector<double> exact = oracle::exact_values(c.spec, c.rows);
      const auto error = [&](uint64_t r, int col) {
        return std::fabs(got[r * width + col] - exact[r * width + col]);
      };
      Rates& rate = rates[impl.output];
      const measure::Judge model(c.spec, Claim::model(Dtype::kFloat32), impl.output);
      for (int trial = 0; trial < 60; ++trial) {
        const uint64_t row = rng() % c.rows;
        const int col = static_cast<int>(rng() % static_cast<uint64_t>(width));
        std::vector<double> column(c.rows), column_exact(c.rows);
        for (uint64_t r = 0; r < c.rows; ++r) {
          column[r] = got[r * width + col];
          column_exact[r] = exact[r * width + col];
        }
        const size_t at = row;
        const double x = column_exact[at];
        double honest = 0;  // the largest honest error within 32 rows either side
        for (uint64_t r = row > 32 ? row - 32 : 0; r <= std::min(c.rows - 1, row + 32); ++r)
          honest = std::max(honest, error(r, col));
        honest =
            std::max(honest, (impl.output == Dtype::kFloat32 ? 16 : 4) * ulp_of(x, impl.output));
        const double sign = rng() % 2 ? 1.0 : -1.0;
        ++rate.trials;
        for (int k = 0; k < 3; ++k) {
          std::vector<double> bad = column;
          bad[at] = stored(column[at] + sign * (4 << k) * honest, impl.output);
          const bool found = caught(bad, column_exact, c, impl.output, row);
          rate.caught[k] += found;
          if (k == 1 &&
              model.allowed(c.spec.start + row, col, 0, x) >= claim_constants().vacuous_budget[0]) {
            ++rate.vacuous;
            rate.vacuous_caught += found;
          }
        }
        // The check allows the element factor x the second largest honest error of the others
        // in its window: a flip of a value larger than that moves it by twice as much.
        std::vector<double> others;
        const uint64_t g = static_cast<uint64_t>(rule.group_rows), group = row / g;
        const uint64_t groups = (c.rows + g - 1) / g,
                       s = static_cast<uint64_t>(rule.groups_each_side);
        uint64_t lo = group > s ? group - s : 0, hi = lo + 2 * s;
        if (hi >= groups) {
          hi = groups - 1;
          lo = hi > 2 * s ? hi - 2 * s : 0;
        }
        for (uint64_t r = lo * g; r < std::min(c.rows, (hi + 1) * g); ++r)
          if (r != row) others.push_back(error(r, col));
        std::nth_element(others.begin(), others.begin() + 1, others.end(), std::greater<>());
        if (std::fabs(x) > rule.factor * others[1] && std::fabs(column[at]) > 0) {
          std::vector<double> bad = column;
          bad[at] = -column[at];
          ++rate.flips;
          rate.flips_caught += caught(bad, column_exact, c, impl.output, row);
        }
      }
    }
  }
  EXPECT_EQ(rates.size(), 3u) << "float32, float16 and bfloat16 outputs, each with trials";
  for (const auto& [dtype, r] : rates) {
    fmt::print(
        "{}: {} trials; caught at 4x {:.1f}%, 8x {:.2f}%, 16x {:.2f}%; sign flips {} of {}; where "
        "the model budget is vacuous, {} of {} caught at 8x\n",
        name_of(dtype), r.trials, 100.0 * r.caught[0] / r.trials, 100.0 * r.caught[1] / r.trials,
        100.0 * r.caught[2] / r.trials, r.flips_caught, r.flips, r.vacuous_caught, r.vacuous);
    EXPECT_GE(r.trials, 1000) << name_of(dtype);
    EXPECT_GE(r.caught[1], 0.99 * r.trials) << name_of(dtype) << ": 8x";
    EXPECT_EQ(r.caught[2], r.trials) << name_of(dtype) << ": 16x";
    EXPECT_GT(r.flips, 0) << name_of(dtype) << ": no sign flip tried";
    EXPECT_EQ(r.flips_caught, r.flips) << name_of(dtype) << ": sign flips";
    EXPECT_GT(r.vacuous, 0) << name_of(dtype) << ": no trial where the model budget is vacuous";
    EXPECT_GE(r.vacuous_caught, 0.99 * r.vacuous) << name_of(dtype) << ": vacuous budget, 8x";
  }
}

}  // namespace
}  // namespace pev::core
