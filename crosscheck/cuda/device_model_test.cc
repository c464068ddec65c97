// The host device-model of the CUDA entries (device_model.h), held against the oracle without a
// GPU: the twin computes the CPU strategies' formulas, rotary recipes included; with every device
// function at the edge of its documented bound, accurate and precise entries stay within their
// claims, on plain tables and real models' caches; the recorded modelled figures
// (modelled_bounds.cc) are what the model gives; fast entries whose __sinf / __cosf arguments
// leave [-pi, pi] are flagged.
#include "peverify/core/cuda/device_model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "peverify/core/cuda/modelled_bounds.h"
#include "peverify/core/cuda/shared_arith.h"
#include "peverify/core/generate.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry.h"
#include "peverify/core/registry_modules.h"
#include "peverify/encoding/rope_models_testutil.h"
#include "peverify/measure/judge.h"
#include "peverify/oracle/table.h"

namespace pev::core::cuda {
namespace {

std::vector<const Implementation*> cuda_entries() {
  std::vector<const Implementation*> out;
  for (const Implementation& e : registry())
    if (e.device == Device::kCuda) out.push_back(&e);
  return out;
}

std::string param_name(const testing::TestParamInfo<const Implementation*>& info) {
  std::string n = info.param->name;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

TableSpec spec_of(int d, double base, uint64_t start = 0) {
  TableSpec s;
  s.d_model = d;
  s.base = base;
  s.start = start;
  return s;
}

// The shared arithmetic's copies of the encoding contract (device code cannot call encoding/).
TEST(SharedArith, MirrorsTheEncodingContract) {
  for (const int d : {2, 4, 64, 512, 4098}) {
    for (const Schedule schedule : {Schedule::kPaper, Schedule::kT2T}) {
      if (schedule == Schedule::kT2T && d < 4) continue;
      for (const Layout layout : {Layout::kInterleaved, Layout::kHalves, Layout::kRopeCos,
                                  Layout::kRopeSin, Layout::kRopeCosDup, Layout::kRopeSinDup}) {
        TableSpec spec = spec_of(d, 1e4);
        spec.schedule = schedule;
        spec.layout = layout;
        std::vector<int> seen(table_width(spec), 0);
        for (int k = 0; k < d / 2; ++k) {
          const Exponent e = exponent_of(d, schedule, k);
          const FrequencyExponent want = frequency_exponent(spec, k);
          EXPECT_EQ(e.numerator, want.numerator);
          EXPECT_EQ(e.denominator, want.denominator);
          const ColumnsOfPair c = columns_of_pair(layout, d / 2, k);
          for (const int column : {c.sin[0], c.sin[1], c.cos[0], c.cos[1]}) {
            if (column < 0) continue;
            ++seen[column];
            EXPECT_EQ(column_at(spec, column).pair, k);
            EXPECT_EQ(column_at(spec, column).is_sin, column == c.sin[0] || column == c.sin[1]);
          }
        }
        for (const int n : seen) EXPECT_EQ(n, 1);  // every column written once
      }
    }
  }
}

// The edge of a bound of at least 2 ulp (every bound the model uses is): within the bound, and
// the next float outward is beyond it.
TEST(BoundEdge, IsTheFarthestFloatWithinTheBound) {
  for (double y : {0.7, -0.3, 1e-4, 0.99999999, -0.99999999, 12345.678, 0x1p-130}) {
    int e;
    std::frexp(std::fabs(y), &e);
    const double ulp = std::ldexp(1.0, std::max(e - 1, -126) - 23);
    std::vector<double> bounds = {2 * ulp, 4 * ulp, 18 * ulp};
    if (std::fabs(y) <= 1) bounds.push_back(DocumentedBounds::fast_sin_abs());
    for (double bound : bounds) {
      for (int sign : {+1, -1}) {
        const float f = bound_edge(y, bound, sign);
        EXPECT_LE(std::fabs(f - y), bound) << y;
        EXPECT_GT(sign * (f - y), 0) << y;
        const float beyond = std::nextafter(f, sign > 0 ? INFINITY : -INFINITY);
        EXPECT_GT(std::fabs(beyond - y), bound) << y;
      }
    }
  }
}

class EntryModel : public testing::TestWithParam<const Implementation*> {};

// The CPU entry computing the same formula with glibc (or the CPU precise strategy).
const Implementation* cpu_twin(const Implementation& e) {
  Implementation cpu = e;
  cpu.device = Device::kCpu;
  cpu.backend = e.strategy == Strategy::kPrecise ? Backend::kHighway : Backend::kGlibc;
  return find_implementation(entry_name(cpu));
}

// The tables the twin and the claims are checked on: plain, and real models' rotary caches (every
// recipe) the entry's base range admits.
std::vector<TableSpec> model_specs(const Implementation& e, uint64_t rows) {
  std::vector<TableSpec> specs = {spec_of(64, 1e4)};
  for (const models::RopeModel& m : models::every_rope_model()) {
    const TableSpec spec = spec_of(m.model, Layout::kInterleaved, 0, rows);
    if (claims_frequencies(e, spec)) specs.push_back(spec);
  }
  return specs;
}

// With every device function correctly rounded, the twin is the CPU strategy with glibc's
// functions (< 1 ulp, usually correctly rounded): the same bits almost everywhere, recipes
// included (the same recipe arithmetic, core/recipe_arith.h).
TEST_P(EntryModel, TwinComputesTheCpuFormula) {
  const Implementation& e = *GetParam();
  const Implementation* cpu = cpu_twin(e);
  ASSERT_NE(cpu, nullptr) << e.name;
  const uint64_t rows = std::min<uint64_t>(512, e.max_position + 1);
  size_t same = 0, total = 0;
  double worst = 0;
  for (const TableSpec& spec : model_specs(e, rows)) {
    const ModelTable twin = model_table(e, spec, rows, Perturbation{true}, nullptr);
    const GeneratedTable want = generate(*cpu, spec, rows);
    for (size_t i = 0; i < want.size(); ++i) {
      same += twin.table.bits(i) == want.bits(i);
      worst = std::max(worst, std::fabs(twin.table.value(i) - want.value(i)));
    }
    total += want.size();
  }
  const double fraction = static_cast<double>(same) / total;
  const double ulp_at_one = e.output == Dtype::kFloat16    ? 0x1p-10
                            : e.output == Dtype::kBFloat16 ? 0x1p-7
                                                           : 0x1p-23;
  fmt::print("{} vs {}: {:.4f} identical, max |diff| {:.3g}\n", e.name, cpu->name, fraction, worst);
  // A function result one float ulp off moves an output by at most one ulp; a rotation carries
  // a different last bit of sin w or cos w through every later row.
  const bool rotation = e.strategy == Strategy::kRecurrence || e.strategy == Strategy::kAnchored;
  EXPECT_GE(fraction, 0.98) << e.name;
  EXPECT_LE(worst, rotation ? ulp_at_one + 1e-5 : ulp_at_one) << e.name;
}

// Every element of every perturbation within the entry's claim, plus `floor` absolutely (of sin
// and cos: times the attention factor in a stored value), over the elements whose device
// functions stayed in their documented range. Returns the fitted C and how many elements were
// judged.
struct Checked {
  double fitted = 0;
  uint64_t elements = 0;
};

Checked check_claim(const Implementation& e, const TableSpec& spec, uint64_t rows, double floor) {
  floor *= attention_factor(spec);
  const std::vector<double> exact = oracle::exact_values(spec, rows);
  const measure::Judge judge(spec, e.claim, e.output);
  Claim output_share = e.claim;  // the model's output-rounding term alone
  output_share.c = 0;
  double fitted = 0;
  uint64_t judged = 0;
  int failures = 0;
  for (const Perturbation& p : perturbations(e)) {
    const ModelTable m = model_table(e, spec, rows, p, exact.data());
    for (uint64_t r = 0; r < rows; ++r) {
      const uint64_t pos = spec.start + r;
      for (int c = 0; c < m.table.width; ++c) {
        const size_t i = r * m.table.width + c;
        if (m.out_of_range[i]) continue;
        ++judged;
        const double x = exact[i];
        const double steps = static_cast<double>(e.steps_since_direct(pos));
        const measure::Judgement j = judge.judge(pos, c, steps, m.table.value(i), x);
        bool ok = j.within;
        if (e.claim.kind == Claim::Kind::kModel) {
          const double a = judge.angle(pos, c);
          ok = measure::is_number(j.error.category) && j.error.abs <= j.allowed + floor;
          fitted =
              std::max(fitted, (j.error.abs - floor - output_share.allowed(x, a, steps, e.output)) /
                                   (e.claim.u * (std::fabs(x) + a + steps)));
        }
        if (!ok && ++failures <= 5)
          ADD_FAILURE() << e.name << " d=" << spec.d_model << " base=" << spec.base << " "
                        << describe(spec.rope) << " pos=" << pos << " col=" << c << std::hexfloat
                        << " model=" << m.table.value(i) << " exact=" << x;
      }
    }
  }
  return {fitted, judged};
}

// Accurate and precise entries: their claims follow from the documented bounds. Fast entries:
// __sinf and __cosf are documented only absolutely (2^-21.41, 2^-21.19 on [-pi, pi]), which no
// relative claim can absorb near zero; their claim holds in the model up to that absolute floor,
// and a device run decides the rest.
TEST_P(EntryModel, WithinItsClaimAtTheDocumentedBounds) {
  const Implementation& e = *GetParam();
  const double floor = e.backend == Backend::kCudaFast ? DocumentedBounds::fast_cos_abs() : 0;
  double fitted = 0;
  uint64_t plain = 0, sampled = 0, recipes = 0;  // elements judged
  const auto judge = [&](const TableSpec& spec, uint64_t rows, uint64_t& judged) {
    const Checked c = check_claim(e, spec, rows, floor);
    fitted = std::max(fitted, c.fitted);
    judged += c.elements;
  };
  for (const int d : {64, 512}) {
    for (const double base : {1e4, 5e5}) {
      if (base > e.max_base) continue;
      const uint64_t rows = std::min<uint64_t>(d == 64 ? 2048 : 256, e.max_position + 1);
      judge(spec_of(d, base), rows, plain);
      if (e.strategy == Strategy::kRecurrence && d != 64) continue;
      for (uint64_t start = 5000; start + 8 <= e.max_position + 1 && start < (1ull << 40);
           start = start * 7 + 13)
        judge(spec_of(d, base, start), 8, sampled);
    }
  }
  // Real models' caches, every recipe: the recipe's own arithmetic (its divisions __fdividef on
  // the fast path) inside the claim's conditioning.
  const uint64_t rows = std::min<uint64_t>(128, e.max_position + 1);
  const std::vector<TableSpec> specs = model_specs(e, rows);
  for (size_t i = 1; i < specs.size(); ++i) judge(specs[i], rows, recipes);
  fmt::print("{}: fitted C {:.3g} (claim {}); {} plain, {} sampled, {} recipe elements judged\n",
             e.name, fitted,
             e.claim.kind == Claim::Kind::kFaithful ? "faithful" : std::to_string(e.claim.c), plain,
             sampled, recipes);
  // A fast entry's angles leave [-pi, pi] for most elements, but never for every one: its
  // slowest columns stay in range.
  EXPECT_GT(plain, 0u) << e.name << ": no element of the plain tables within the documented range";
  if (e.max_position >= 5007) {
    EXPECT_GT(sampled, 0u) << e.name << ": no sampled block judged";
  }
  if (specs.size() > 1) {
    EXPECT_GT(recipes, 0u) << e.name << ": no recipe cache element judged";
  }
}

TEST_P(EntryModel, FlagsFastArgumentsOutsideMinusPiPi) {
  const Implementation& e = *GetParam();
  const TableSpec spec = spec_of(64, 1e4);
  const bool fast = e.backend == Backend::kCudaFast;
  const bool recurrence = e.strategy == Strategy::kRecurrence;
  // Positions 0..3: every angle pos * w_k <= 3 < pi. From 4 on, pair 0 (w = 1) leaves the range.
  EXPECT_FALSE(fast_argument_out_of_range(e, spec, 4)) << e.name;
  const uint64_t rows = std::min<uint64_t>(256, e.max_position + 1);
  const bool expected = fast && !recurrence && rows > 4 &&
                        (e.strategy != Strategy::kAnchored || rows > e.anchor_interval);
  EXPECT_EQ(fast_argument_out_of_range(e, spec, rows), expected) << e.name;
  const std::vector<double> exact = oracle::exact_values(spec, rows);
  const ModelledError m = modelled_error(e, spec, rows, exact);
  EXPECT_EQ(m.out_of_range > 0, expected) << e.name;
  EXPECT_EQ(m.elements, rows * static_cast<uint64_t>(table_width(spec)));
}

// The figures listings show (modelled_bounds.cc) are the model's.
TEST_P(EntryModel, RecordedModel) {
  const Implementation& e = *GetParam();
  const TableSpec near = spec_of(kRecordedDModel, 1e4);
  const uint64_t near_rows = std::min<uint64_t>(kRecordedRows, e.max_position + 1);
  const ModelledError n = modelled_error(e, near, near_rows, oracle::exact_values(near, near_rows));
  double far_abs = -1, far_share = 0, far_assumed = -1;
  if (e.max_position >= kRecordedFarLast) {
    const TableSpec far = spec_of(kRecordedDModel, 1e4, kRecordedFarLast - kRecordedFarRows + 1);
    const ModelledError f =
        modelled_error(e, far, kRecordedFarRows, oracle::exact_values(far, kRecordedFarRows));
    far_abs = f.max_abs;
    far_share = static_cast<double>(f.out_of_range) / f.elements;
    far_assumed = f.assumed_max_abs;
  }
  const double near_share = static_cast<double>(n.out_of_range) / n.elements;
  const std::string line =
      fmt::format("    {{\"{}\", {:.4g}, {:.4g}, {:.4g}, {:.4g}, {:.4g}, {:.4g}}},", e.name,
                  n.max_abs, near_share, n.assumed_max_abs, far_abs, far_share, far_assumed);
  fmt::print("{}\n  worst near: pos {} col {} got {:a} exact {:a} ({:.3g} ulp)\n", line, n.pos,
             n.column, n.got, n.exact, n.max_ulp);
  const RecordedModel* r = recorded_model(e.name);
  ASSERT_NE(r, nullptr) << "record in core/cuda/modelled_bounds.cc:\n" << line;
  const auto close = [](double a, double b) {
    return a == b ||
           std::fabs(a - b) <= kRecordedRelativeTolerance * std::max(std::fabs(a), std::fabs(b));
  };
  EXPECT_TRUE(close(r->near_abs, n.max_abs) && close(r->near_out_of_range, near_share) &&
              close(r->near_assumed_abs, n.assumed_max_abs) && close(r->far_abs, far_abs) &&
              close(r->far_out_of_range, far_share) && close(r->far_assumed_abs, far_assumed))
      << "update core/cuda/modelled_bounds.cc:\n"
      << line;
}

INSTANTIATE_TEST_SUITE_P(Cuda, EntryModel, testing::ValuesIn(cuda_entries()), param_name);

}  // namespace
}  // namespace pev::core::cuda
