// The registry's own invariants: names, strategies, the recipes every entry computes, and that
// layouts and starts select the same numbers for every entry and recipe; float32 recipe tables
// against a double reference. Judging the numbers against the oracle is crosscheck/'s.
#include "peverify/core/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "peverify/core/generate.h"
#include "peverify/core/recipe.h"
#include "peverify/encoding/rope_models_testutil.h"
#include "peverify/measure/judge.h"

namespace pev::core {
namespace {

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

// Every entry that restarts from direct rows does so at claims.json's interval: the precise
// strategy's compile-time constant (core/precise/plan.h) included, whose CPU entries carry it.
// The others compute every row directly, or rotate from position 0.
TEST(Registry, AnchoredEntriesRestartAtTheClaimedInterval) {
  for (const Implementation& e : registry()) {
    const bool restarts = e.strategy == Strategy::kAnchored ||
                          (e.strategy == Strategy::kPrecise && e.device == Device::kCpu);
    EXPECT_EQ(e.anchor_interval, restarts ? claim_constants().limits.anchor_interval : 0) << e.name;
  }
}

// The CPU entries: none may be unavailable, so every test over the available ones covers them.
int cpu_entries() {
  return static_cast<int>(
      std::count_if(registry().begin(), registry().end(),
                    [](const Implementation& e) { return e.device == Device::kCpu; }));
}

// The tables the layout test compares: plain (512 exercises the full-width vector paths, 16 the
// tails) and every recipe, of real models.
std::vector<TableSpec> layout_specs() {
  std::vector<TableSpec> specs;
  for (const int d : {16, 512}) specs.push_back(grid_spec(d, 1e4));
  for (const models::RopeModel& m : models::every_rope_model())
    specs.push_back(spec_of(m.model, Layout::kInterleaved, 0, 40));
  return specs;
}

TEST(Registry, EveryEntryComputesEveryRecipe) {
  for (const Implementation& e : registry()) EXPECT_EQ(e.recipes, every_recipe()) << e.name;
}

// Layouts and start offsets select the same numbers: the halves layout is a permutation of the
// interleaved one, rotary caches are its columns, and a table at start s is rows s.. of one at 0.
// With a recipe too: every entry builds Llama 3.1's, Qwen2.5's and DeepSeek-V3's caches (and one
// of each other recipe) in every layout.
TEST(Registry, LayoutsAndStartsAgreeForEveryEntryAndRecipe) {
  int entries = 0;
  for (const Implementation& impl : registry()) {
    if (impl.available && !impl.available()) continue;
    ++entries;
    for (const TableSpec& a : layout_specs()) {
      const int d = a.d_model;
      const GeneratedTable ta = generate(impl, a, 40);
      for (Layout l : all_layouts()) {
        TableSpec b = a;
        b.layout = l;
        b.start = 17;
        const GeneratedTable tb = generate(impl, b, 23);
        for (uint64_t r = 0; r < 23; ++r)
          for (int c = 0; c < tb.width; ++c) {
            const Column col = column_at(b, c);
            const uint64_t ia = (r + 17) * d + 2 * col.pair + (col.is_sin ? 0 : 1);
            ASSERT_EQ(tb.bits(r * tb.width + c), ta.bits(ia))
                << impl.name << " d " << d << " " << describe(a.rope) << " layout " << name_of(l)
                << " row " << r << " col " << c;
          }
      }
    }
  }
  // Only the CUDA entries may be unavailable: every CPU entry was compared.
  EXPECT_GT(cpu_entries(), 0);
  EXPECT_GE(entries, cpu_entries()) << "entries compared";
}

// The double reference: A sin(pos w) and A cos(pos w) with rope_double's w and A. Its error
// (~2^-52 of the angle) is far below what a float32 computation's claim allows.
std::vector<double> double_reference(const TableSpec& spec, uint64_t count) {
  const int width = table_width(spec);
  const double attention = attention_factor(spec);
  std::vector<double> v(count * width);
  for (uint64_t r = 0; r < count; ++r)
    for (int c = 0; c < width; ++c) {
      const Column col = column_at(spec, c);
      const double a = static_cast<double>(spec.start + r) * frequency(spec, col.pair);
      v[r * width + c] = attention * (col.is_sin ? std::sin(a) : std::cos(a));
    }
  return v;
}

// Every float32 entry's recipe tables stay within its model claim of the double reference (the
// oracle's judgement is crosscheck/registry_recipes_test.cc's): every row of a prefix, and blocks
// around the pretrained context L0 and the long contexts the recipes are for.
TEST(Registry, Float32EntriesComputeRecipesWithinTheirClaim) {
  int entries = 0;
  for (const Implementation& impl : registry()) {
    if (impl.compute != Dtype::kFloat32 || (impl.available && !impl.available())) continue;
    ++entries;
    int blocks = 0;
    for (const models::RopeModel& m : models::every_rope_model()) {
      const uint64_t last = std::min<uint64_t>(impl.max_position, uint64_t{1} << 17);
      for (const uint64_t start :
           {uint64_t{0}, uint64_t{4090}, uint64_t{8190}, uint64_t{32766}, last - 7}) {
        const uint64_t rows = start == 0 ? 512 : 8;
        const TableSpec spec = spec_of(m.model, Layout::kRopeCosSin, start, rows);
        if (start + rows - 1 > impl.max_position || !claims_frequencies(impl, spec)) continue;
        ++blocks;
        const GeneratedTable got = generate(impl, spec, rows);
        const std::vector<double> want = double_reference(spec, rows);
        const measure::Judge judge(spec, impl.claim, impl.output);
        measure::Figures f;
        std::vector<double> row(got.width);
        for (uint64_t r = 0; r < rows; ++r) {
          for (int c = 0; c < got.width; ++c) row[c] = got.value(r * got.width + c);
          const uint64_t pos = start + r;
          judge.add_row(pos, static_cast<double>(impl.steps_since_direct(pos)), row.data(),
                        want.data() + r * got.width, f);
        }
        EXPECT_EQ(f.over_claim, 0u)
            << impl.name << " " << m.name << " from " << start << ": " << f.over_claim
            << " elements outside the claim, worst " << f.worst_fraction << " x the budget at pos "
            << f.worst_pos << " col " << f.worst_column;
      }
    }
    // Every entry claims some model's frequencies from position 0.
    EXPECT_GE(blocks, 1) << impl.name << ": no recipe table judged";
  }
  EXPECT_GT(entries, 0) << "float32 entries judged";
}

}  // namespace
}  // namespace pev::core
