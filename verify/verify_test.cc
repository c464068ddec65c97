// peverify verify on honest tables (they pass) and on tables with the defects users meet (each
// fails, and the failure names the defect's place).
#include "peverify/verify/verify.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <tuple>

#include "peverify/core/convert.h"
#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/measure/error.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"

namespace pev::verify {
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
  TableInput in{name, name, impl.output, rows, {}, {}};
  in.values.resize(t.size());
  for (size_t i = 0; i < t.size(); ++i) in.values[i] = t.value(i);
  return in;
}

const properties::PropertyVerdict& verdict(const VerifyResult& r, const std::string& property) {
  for (const auto& v : r.verdicts)
    if (v.property == property) return v;
  static properties::PropertyVerdict none;
  return none;
}

VerifyResult run(TableInput in, const TableSpec& spec,
                 Claim claim = Claim::model(Dtype::kFloat32)) {
  VerifyOptions o;
  o.spec = spec;
  o.claim = claim;
  return verify_table(std::move(in), o);
}

// The correctly rounded table of a spec, as a user's file would hold it.
TableInput exact_table(const TableSpec& spec, uint64_t rows, Dtype dtype = Dtype::kFloat32) {
  const auto engine = oracle::make_fast_engine(spec, dtype);
  oracle::ExactTable t = oracle::compute_table(*engine, spec, rows);
  TableInput in{"exact", "exact", dtype, rows, {}, std::move(t.rounded)};
  return in;
}

// The exact values (rounded to double) of the same table.
std::vector<double> exact_values_of(const TableSpec& spec, uint64_t rows) {
  return oracle::exact_values(spec, rows);
}

struct Named {
  bool holds;
  uint64_t pos;
  int column;
  std::string what;
};

// The oracle verdict and its worst element.
Named oracle_of(const VerifyResult& r) {
  const properties::PropertyVerdict& v = verdict(r, "oracle");
  if (v.worst.empty()) return {v.holds, 0, -1, ""};
  return {v.holds, v.worst.front().pos, v.worst.front().column, v.worst.front().what};
}

TEST(VerifyByEncoding, MinusZeroForSinZeroFailsStrictAsASignMismatch) {
  const TableSpec spec = spec_of(64);
  TableInput t = exact_table(spec, 300);
  EXPECT_TRUE(run(t, spec, Claim::strict()).holds());
  t.values[0] = -0.0;  // sin(0 * w_0)
  const VerifyResult r = run(t, spec, Claim::strict());
  const Named n = oracle_of(r);
  EXPECT_FALSE(n.holds) << to_text(r);
  EXPECT_EQ(n.pos, 0u);
  EXPECT_EQ(n.column, 0);
  EXPECT_EQ(n.what, "sign");
  EXPECT_EQ(r.oracle.failed_sign, 1u);
  EXPECT_NE(to_text(r).find("1 with the wrong sign"), std::string::npos) << to_text(r);
  // And under every other budget.
  EXPECT_FALSE(run(t, spec, Claim::faithful()).holds());
  EXPECT_FALSE(run(t, spec, Claim::model(Dtype::kFloat32)).holds());
}

TEST(VerifyByEncoding, FaithfulAcceptsTheOtherRoundingAndNothingFarther) {
  const TableSpec spec = spec_of(64);
  const uint64_t rows = 300;
  const TableInput good = exact_table(spec, rows);
  const std::vector<double> exact = exact_values_of(spec, rows);
  // Every element rounded the other way (the other float bracketing the exact value).
  TableInput other = good;
  int flipped = 0;
  for (size_t i = 0; i < exact.size(); ++i)
    if (exact[i] != good.values[i]) {
      other.values[i] = measure::format_neighbour(
          good.values[i], exact[i] > good.values[i] ? 1 : -1, Dtype::kFloat32, exact[i]);
      ++flipped;
    }
  EXPECT_GT(flipped, 10000);
  const VerifyResult faithful = run(other, spec, Claim::faithful());
  EXPECT_TRUE(verdict(faithful, "oracle").holds) << to_text(faithful);
  EXPECT_FALSE(verdict(run(other, spec, Claim::strict()), "oracle").holds);
  // One element two floats away from the exact value's bracket.
  TableInput far = good;
  const size_t i = 123 * 64 + 17;
  const int side = exact[i] > good.values[i] ? 1 : -1;
  far.values[i] = measure::format_neighbour(
      measure::format_neighbour(good.values[i], side, Dtype::kFloat32, exact[i]), side,
      Dtype::kFloat32, exact[i]);
  const VerifyResult r = run(far, spec, Claim::faithful());
  const Named n = oracle_of(r);
  EXPECT_FALSE(n.holds);
  EXPECT_EQ(n.pos, 123u);
  EXPECT_EQ(n.column, 17);
  EXPECT_EQ(r.oracle.over_claim, 1u);
}

TEST(VerifyByEncoding, NaNAndBothInfinitiesAreCountedApart) {
  const TableSpec spec = spec_of(64);
  TableInput t = exact_table(spec, 300);
  t.values[10 * 64 + 3] = NAN;
  t.values[20 * 64 + 4] = INFINITY;
  t.values[30 * 64 + 5] = -INFINITY;
  const VerifyResult r = run(t, spec);
  EXPECT_EQ(r.oracle.nan, 1u);
  EXPECT_EQ(r.oracle.inf, 2u);
  EXPECT_EQ(r.oracle.over_claim, 3u);
  EXPECT_FALSE(verdict(r, "bounded").holds);
  EXPECT_EQ(verdict(r, "bounded").figures.at("first_violation_position"), 10);
  const Named n = oracle_of(r);
  EXPECT_EQ(n.what, "nan");  // NaN first: it has no error to compare
  EXPECT_EQ(n.pos, 10u);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["outside_budget"]["nan"], 1);
  EXPECT_EQ(j["outside_budget"]["inf"], 2);
}

TEST(VerifyByEncoding, AFloat16TableWithSubnormalsFlushedToZeroFails) {
  // Base 1e6, d 64: the lowest frequency is ~1.5e-6, so sin of the first ~40 positions is a
  // float16 subnormal (below 2^-14).
  const TableSpec spec = spec_of(64, 1e6);
  TableInput t = exact_table(spec, 300, Dtype::kFloat16);
  int flushed = 0;
  for (double& v : t.values)
    if (v != 0 && std::fabs(v) < 0x1p-14) {
      v = std::copysign(0.0, v);
      ++flushed;
    }
  ASSERT_GT(flushed, 10);
  for (const Claim& claim : {Claim::model(Dtype::kFloat32), Claim::faithful(), Claim::strict()}) {
    const VerifyResult r = run(t, spec, claim);
    const properties::PropertyVerdict& v = verdict(r, "oracle");
    ASSERT_FALSE(v.holds) << claim.describe() << "\n" << to_text(r);
    EXPECT_EQ(v.worst.front().got, 0.0);
    EXPECT_LT(std::fabs(v.worst.front().expected), 0x1p-14);
    EXPECT_EQ(v.worst.front().what, "number");
    EXPECT_EQ(r.oracle.failed_value, static_cast<uint64_t>(flushed)) << claim.describe();
  }
}

TEST(VerifyByEncoding, ScheduleLayoutAndRowDefectsNameTheirElement) {
  const TableSpec paper = spec_of(64);
  TableSpec t2t = paper;
  t2t.schedule = Schedule::kT2T;
  // The t2t schedule declared as paper: pair 0 agrees (w = 1 in both), the others do not.
  const Named schedule = oracle_of(run(exact_table(t2t, 300), paper));
  EXPECT_FALSE(schedule.holds);
  EXPECT_GE(schedule.column, 2);
  // One pair's sin and cos swapped (pair 5: columns 10 and 11).
  TableInput swapped = exact_table(paper, 300);
  for (uint64_t r = 0; r < 300; ++r)
    std::swap(swapped.values[r * 64 + 10], swapped.values[r * 64 + 11]);
  const Named pair = oracle_of(run(swapped, paper));
  EXPECT_FALSE(pair.holds);
  EXPECT_TRUE(pair.column == 10 || pair.column == 11) << pair.column;
  // One column negated (sin of pair 2): wrong signs where the budget fixes them.
  TableInput negated = exact_table(paper, 300);
  for (uint64_t r = 0; r < 300; ++r) negated.values[r * 64 + 4] = -negated.values[r * 64 + 4];
  const VerifyResult neg = run(negated, paper);
  const Named column = oracle_of(neg);
  EXPECT_FALSE(column.holds);
  EXPECT_EQ(column.column, 4);
  EXPECT_EQ(column.what, "sign");
  EXPECT_GT(neg.oracle.failed_sign, 250u);
  // Two rows swapped: every row still distinct, but both in the wrong place.
  TableInput rows = exact_table(paper, 300);
  std::swap_ranges(rows.values.begin() + 100 * 64, rows.values.begin() + 101 * 64,
                   rows.values.begin() + 200 * 64);
  const VerifyResult rr = run(rows, paper);
  const Named row = oracle_of(rr);
  EXPECT_FALSE(row.holds);
  EXPECT_TRUE(row.pos == 100 || row.pos == 200) << row.pos;
  EXPECT_TRUE(verdict(rr, "unique").holds);
  EXPECT_EQ(rr.oracle.over_claim % 2, 0u);
}

TEST(VerifyByEncoding, RepeatsTheFormatForcesAreANoteNotAFailure) {
  // Correctly rounded float16, d = 2: one (sin, cos) pair of 11-bit values cannot keep 4096
  // positions apart.
  const TableSpec spec = spec_of(2);
  const VerifyResult r = run(exact_table(spec, 4096, Dtype::kFloat16), spec, Claim::strict());
  EXPECT_TRUE(r.holds()) << to_text(r);
  const properties::PropertyVerdict& u = verdict(r, "unique");
  EXPECT_GT(u.figures.at("format_limited_rows"), 0);
  ASSERT_FALSE(u.notes.empty());
  EXPECT_NE(u.notes[0].find("limit of the format"), std::string::npos) << u.notes[0];
  EXPECT_NE(
      u.notes[0].find(fmt::format(
          "position {}", static_cast<uint64_t>(u.figures.at("first_format_limited_position")))),
      std::string::npos);
  // The same rows repeated where the exact table does not repeat them still fail.
  TableInput t = exact_table(spec, 4096, Dtype::kFloat16);
  t.values[2 * 3000] = t.values[2 * 5];
  t.values[2 * 3000 + 1] = t.values[2 * 5 + 1];
  EXPECT_FALSE(verdict(run(t, spec, Claim::strict()), "unique").holds);
}

TEST(VerifyByEncoding, EveryLayoutOfACorrectlyRoundedTableIsStrict) {
  for (const Layout layout : all_layouts())
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kBFloat16}) {
      const TableSpec spec = spec_of(32, 1e4, layout, 100);
      TableInput t = exact_table(spec, 200, dtype);
      const VerifyResult r = run(t, spec, Claim::strict());
      EXPECT_TRUE(r.holds()) << name_of(layout) << " " << name_of(dtype) << "\n" << to_text(r);
      // One element off by one ulp in the middle of the table is found where it is.
      const size_t i = 150 * static_cast<size_t>(table_width(spec)) + 3;
      t.values[i] = measure::format_neighbour(t.values[i], 1, dtype, t.values[i]);
      const Named n = oracle_of(run(t, spec, Claim::strict()));
      EXPECT_FALSE(n.holds) << name_of(layout);
      EXPECT_EQ(n.pos, 250u) << name_of(layout);
      EXPECT_EQ(n.column, 3) << name_of(layout);
    }
}

TEST(Verify, SaysWhatTheBudgetDoesNotCheckAndWhatWould) {
  // d 2, w = 1: at positions past ~52429 the float32 model budget exceeds 0.1.
  const TableSpec spec = spec_of(2, 1e4, Layout::kInterleaved, 50000);
  Claim claim = Claim::model(Dtype::kFloat32);
  claim.c = 40;
  const VerifyResult r = run(exact_table(spec, 10000), spec, claim);
  EXPECT_TRUE(r.holds());
  EXPECT_GT(r.oracle.vacuous[0], 0u);
  EXPECT_EQ(r.oracle.first_vacuous_pos[0], 50000u) << "C = 40 reaches 0.1 before 52429";
  const std::string text = to_text(r);
  EXPECT_NE(text.find("checked against nothing useful"), std::string::npos) << text;
  EXPECT_NE(text.find("--compute float64"), std::string::npos) << text;
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["claim"]["c"], 40);
  EXPECT_EQ(j["vacuous_budget"][0]["from_position"], 50000);
  EXPECT_EQ(j["vacuous_budget"][0]["elements"], r.oracle.vacuous[0]);
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
    const properties::PropertyVerdict& v = verdict(r, d.caught_by);
    EXPECT_FALSE(v.holds) << d.what << " was not caught by " << d.caught_by << "\n" << to_text(r);
    EXPECT_FALSE(r.holds()) << d.what;
    if (d.at_position >= 0 && !v.worst.empty()) {
      EXPECT_EQ(v.worst.front().pos, static_cast<uint64_t>(d.at_position)) << d.what;
    }
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
    o.claim = Claim::model(Dtype::kFloat32);
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
    const properties::PropertyVerdict& u = verdict(r, "unique");
    EXPECT_FALSE(u.holds);
    EXPECT_EQ(u.figures.at("first_duplicate_position"), 4000);
    EXPECT_EQ(u.figures.at("duplicate_rows"), 1);
  }
}

}  // namespace
}  // namespace pev::verify
