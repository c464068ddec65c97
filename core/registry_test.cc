// The registry's own invariants: names, strategies, and that layouts and starts select the same
// numbers for every entry. Judging the numbers against the oracle is crosscheck/'s.
#include "core/registry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/generate.h"

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
                << impl.name << " d " << d << " layout " << name_of(l) << " row " << r << " col "
                << c;
          }
      }
    }
  }
}

}  // namespace
}  // namespace pev::core
