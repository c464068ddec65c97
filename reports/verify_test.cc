// peverify verify on honest tables (they pass) and on tables with the defects users meet (each
// fails, and the failure names the defect's place).
#include "reports/verify.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <tuple>

#include "core/convert.h"
#include "core/generate.h"
#include "core/registry.h"
#include "oracle/table.h"

namespace pev::reports {
namespace {

TableSpec spec_of(int d, double base = 1e4, Layout layout = Layout::kInterleaved,
                  uint64_t start = 0) {
  TableSpec s;
  s.d_model = d;
  s.base = base;
  s.layout = layout;
  s.start = start;
  return s;
}

TableInput from_entry(const char* name, const TableSpec& spec, uint64_t rows) {
  const core::Implementation& impl = *core::find_implementation(name);
  const core::GeneratedTable t = core::generate(impl, spec, rows);
  TableInput in{name, name, impl.output, rows, {}};
  in.values.resize(t.size());
  for (size_t i = 0; i < t.size(); ++i) in.values[i] = t.value(i);
  return in;
}

const properties::Verdict& verdict(const VerifyResult& r, const std::string& property) {
  for (const auto& v : r.verdicts)
    if (v.property == property) return v;
  static properties::Verdict none;
  return none;
}

VerifyResult run(TableInput in, const TableSpec& spec,
                 Claim budget = Claim::model(Dtype::kFloat32)) {
  VerifyOptions o;
  o.spec = spec;
  o.budget = budget;
  return verify_table(std::move(in), o);
}

TEST(Verify, HonestTablesPassInEveryDtypeLayoutStartAndBase) {
  struct Case {
    const char* impl;
    TableSpec spec;
  } cases[] = {
      {"cpu/logspace/f64>f32/glibc", spec_of(64)},
      {"cpu/pow/f32>f32/glibc", spec_of(128, 5e5, Layout::kHalves, 1000)},
      {"cpu/logspace/f32>f16/sleef-u10", spec_of(64, 1e4, Layout::kRopeCosDup, 70000)},
      {"cpu/logspace/f32>bf16/glibc", spec_of(32, 1e6, Layout::kRopeSin)},
      {"cpu/precise/f64>f32/hwy", spec_of(512, 1e4, Layout::kInterleaved, 1u << 20)},
  };
  for (const Case& c : cases) {
    const VerifyResult r = run(from_entry(c.impl, c.spec, 700), c.spec);
    EXPECT_TRUE(r.holds()) << c.impl << "\n" << to_text(r);
  }
}

// Each defect, the property that must catch it, and where it must point.
struct Defect {
  const char* what;
  std::function<void(TableInput&, const TableSpec&)> apply;
  TableSpec declared;  // what the user tells verify
  const char* caught_by;
  int64_t at_position;  // where the worst finding must be (-1: anywhere)
};

TEST(Verify, DefectsFailAndNameTheirPlace) {
  const TableSpec truth = spec_of(64);
  const auto good = [&] { return from_entry("cpu/logspace/f64>f32/glibc", truth, 600); };
  const auto with_entry = [&](const char* name) {
    return [name](TableInput& t, const TableSpec& s) { t = from_entry(name, s, t.rows); };
  };
  const Defect defects[] = {
      {"wrong base",
       [](TableInput& t, const TableSpec& s) {
         t = from_entry("cpu/logspace/f64>f32/glibc", spec_of(s.d_model, 1.1e4), t.rows);
       },
       truth, "oracle", -1},
      {"wrong layout (halves read as interleaved)",
       [](TableInput& t, const TableSpec& s) {
         t = from_entry("cpu/logspace/f64>f32/glibc", spec_of(s.d_model, 1e4, Layout::kHalves),
                        t.rows);
       },
       truth, "oracle", -1},
      {"shifted positions",
       [](TableInput& t, const TableSpec& s) {
         t = from_entry("cpu/logspace/f64>f32/glibc", spec_of(s.d_model, 1e4, s.layout, 1), t.rows);
       },
       truth, "oracle", -1},
      {"a corrupted element",
       [](TableInput& t, const TableSpec&) { t.values[123 * 64 + 9] += 1e-3; }, truth, "oracle",
       123},
      {"a value outside [-1, 1]",
       [](TableInput& t, const TableSpec&) { t.values[77 * 64 + 1] = 1.5; }, truth, "bounded", 77},
      {"NaN", [](TableInput& t, const TableSpec&) { t.values[401 * 64 + 30] = NAN; }, truth,
       "bounded", 401},
      {"duplicated rows",
       [](TableInput& t, const TableSpec&) {
         std::copy(t.values.begin() + 10 * 64, t.values.begin() + 11 * 64,
                   t.values.begin() + 500 * 64);
       },
       truth, "unique", 500},
      {"truncating bfloat16 conversion",
       [](TableInput& t, const TableSpec&) {
         for (double& v : t.values)
           v = core::f32_from_bf16(core::bf16_from_f32_truncate(static_cast<float>(v)));
         t.dtype = Dtype::kBFloat16;
       },
       truth, "oracle", -1},
      {"low-precision positions", with_entry("cpu/logspace/bf16>bf16/glibc"), truth, "unique", 257},
      {"drifting recurrence", with_entry("cpu/recurrence/f32>f32/glibc"), truth, "oracle", -1},
      {"wrong formula (exponent from the dimension)",
       [](TableInput& t, const TableSpec& s) {
         for (uint64_t r = 0; r < t.rows; ++r)
           for (int c = 0; c < 64; ++c) {
             const double a = r * std::pow(s.base, -static_cast<double>(c) / s.d_model);
             t.values[r * 64 + c] = static_cast<float>(c % 2 ? std::cos(a) : std::sin(a));
           }
       },
       truth, "oracle", -1},
  };
  for (const Defect& d : defects) {
    TableInput t = good();
    d.apply(t, truth);
    const VerifyResult r = run(std::move(t), d.declared);
    const properties::Verdict& v = verdict(r, d.caught_by);
    EXPECT_FALSE(v.holds) << d.what << " was not caught by " << d.caught_by << "\n" << to_text(r);
    EXPECT_FALSE(r.holds()) << d.what;
    if (d.at_position >= 0 && !v.worst.empty())
      EXPECT_EQ(v.worst.front().pos, static_cast<uint64_t>(d.at_position)) << d.what;
  }
}

TEST(Verify, EveryElementWhateverTheBlocksThreadsAndPasses) {
  // Tiny blocks, one or two threads, repeats checked in one pass or in seven: the same figures.
  const TableSpec spec = spec_of(64);
  TableInput in = from_entry("cpu/pow/f32>f32/glibc", spec, 5000);
  std::copy(in.values.begin() + 10 * 64, in.values.begin() + 11 * 64,
            in.values.begin() + 4000 * 64);
  std::vector<VerifyResult> results;
  for (const auto& [block, threads, per_pass] :
       {std::tuple{uint64_t{1} << 15, 0, uint64_t{1} << 25},
        std::tuple{uint64_t{100}, 1, uint64_t{700}}, std::tuple{uint64_t{1}, 2, uint64_t{5000}}}) {
    VerifyOptions o;
    o.spec = spec;
    o.budget = Claim::model(Dtype::kFloat32);
    o.block_elements = block;
    o.threads = threads;
    o.unique_rows_per_pass = per_pass;
    results.push_back(verify_table(in, o));
  }
  for (const VerifyResult& r : results) {
    EXPECT_EQ(r.oracle_coverage, "exhaustive: every one of 320000 elements");
    EXPECT_EQ(r.oracle.elements, 320000u);
    EXPECT_DOUBLE_EQ(r.oracle.sum_abs, results[0].oracle.sum_abs);  // summed in other groups
    EXPECT_EQ(r.oracle.max_abs, results[0].oracle.max_abs);
    const properties::Verdict& u = verdict(r, "unique");
    EXPECT_FALSE(u.holds);
    EXPECT_EQ(u.figures.at("first_duplicate_position"), 4000);
    EXPECT_EQ(u.figures.at("duplicate_rows"), 1);
  }
}

}  // namespace
}  // namespace pev::reports
