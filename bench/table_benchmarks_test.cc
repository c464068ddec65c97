// The benchmarks compare like with like: every entry's roofline covers exactly the bytes the entry
// writes (a float16 table is 2 bytes a value, not 4), and its ratio is taken to that roofline.
#include "peverify/bench/table_benchmarks.h"

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include "peverify/bench/bench_report.h"

namespace pev::bench {
namespace {

std::map<std::string, Measured> register_quick(const std::string& filter,
                                               std::vector<Layout> layouts = {
                                                   Layout::kInterleaved}) {
  Config config;
  config.quick = true;
  config.filter = filter;
  config.layouts = std::move(layouts);
  config.repetitions = 1;
  std::map<std::string, Measured> m = register_table_benchmarks(config);
  benchmark::ClearRegisteredBenchmarks();  // registered, never run
  return m;
}

TEST(TableBenchmarks, A2ByteEntryAndItsRooflineCoverTheSameBytes) {
  const auto measured = register_quick("^cpu/precise/f64>(f16|f32)/");
  int narrow = 0, entries = 0;
  for (const auto& [name, m] : measured) {
    if (m.roofline) continue;
    ++entries;
    const bool f16 = m.impl.find(">f16/") != std::string::npos;
    EXPECT_EQ(m.element_bytes, f16 ? 2 : 4) << name;
    EXPECT_EQ(m.bytes, m.positions * m.d_model * m.element_bytes) << name;
    narrow += f16;
    int rooflines = 0;
    for (const auto& [rname, r] : measured) {
      if (!r.roofline || r.table != m.table || r.threads != m.threads ||
          r.element_bytes != m.element_bytes || r.columns != m.columns)
        continue;
      EXPECT_EQ(r.bytes, m.bytes) << rname << " beside " << name;
      ++rooflines;
    }
    // Rows of 1024 or 2048 bytes: the two tiled store orders are timed too.
    EXPECT_EQ(rooflines, 6) << "three store fills, memcpy and two store orders beside " << name;
  }
  // One table in the quick run: cpu/precise/f64>f16/hwy and cpu/precise/f64>f32/hwy.
  EXPECT_EQ(entries, 2) << "entries of ^cpu/precise/f64>(f16|f32)/ registered";
  EXPECT_EQ(narrow, 1);
}

// A cache of cosines only has d/2 columns: its roofline writes half the bytes of the full rows.
TEST(TableBenchmarks, EachLayoutIsComparedWithTheBytesItWrites) {
  const auto measured =
      register_quick("^cpu/precise/f64>f16/", {Layout::kRopeCosSin, Layout::kRopeCos});
  int entries = 0;
  for (const auto& [name, m] : measured) {
    if (m.roofline) continue;
    ++entries;
    EXPECT_EQ(m.columns, m.layout == "rope-cos" ? m.d_model / 2 : m.d_model) << name;
    EXPECT_EQ(m.bytes, m.positions * m.columns * 2u) << name;
    int rooflines = 0;
    for (const auto& [rname, r] : measured)
      if (r.roofline && r.table == m.table && r.threads == m.threads && r.columns == m.columns &&
          r.element_bytes == m.element_bytes) {
        EXPECT_EQ(r.bytes, m.bytes) << rname << " beside " << name;
        ++rooflines;
      }
    EXPECT_EQ(rooflines, 6) << name;
  }
  EXPECT_EQ(entries, 2);
}

TEST(TableBenchmarks, OnlyTheWidthsOfTheSelectedEntriesGetRooflines) {
  int entries = 0, rooflines = 0;
  for (const auto& [name, m] : register_quick("^cpu/precise/f64>bf16/")) {
    EXPECT_EQ(m.element_bytes, 2) << name;
    ++(m.roofline ? rooflines : entries);
  }
  EXPECT_EQ(entries, 1) << "cpu/precise/f64>bf16/hwy";
  EXPECT_EQ(rooflines, 6) << "the rooflines of its 2-byte elements";
}

// Made-up timings: the 2-byte entry runs at half the speed of the 2-byte stores, while the 4-byte
// stores of the same table take twice as long as the 2-byte ones. The ratio must be 0.5, which
// only the 2-byte roofline gives.
TEST(BenchReport, RatioIsToTheRooflineOfTheSameElementSize) {
  const uint64_t values = 8192 * 512;
  std::map<std::string, Measured> measured;
  std::map<std::string, std::vector<double>> seconds;
  measured["roofline/plain-store/t/2B"] = {"plain-store", true,      "t", 512, 8192, 1, 2,
                                           values,        2 * values};
  seconds["roofline/plain-store/t/2B"] = {1.0, 1.0, 1.1};
  measured["roofline/plain-store/t/4B"] = {"plain-store", true,      "t", 512, 8192, 1, 4,
                                           values,        4 * values};
  seconds["roofline/plain-store/t/4B"] = {2.0, 2.0, 2.2};
  measured["narrow"] = {"cpu/x/f64>f16/y", false, "t", 512, 8192, 1, 2, values, 2 * values};
  seconds["narrow"] = {2.0, 2.0, 1.9};
  const Report r = summarize(measured, seconds);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].element_bytes, 2);
  EXPECT_DOUBLE_EQ(r.results[0].bytes_per_s.median, values);
  EXPECT_DOUBLE_EQ(r.results[0].roofline_bytes_per_s, 2.0 * values);
  EXPECT_DOUBLE_EQ(r.results[0].roofline_ratio, 0.5);
  ASSERT_EQ(r.rooflines.size(), 2u);
  for (const Roofline& roofline : r.rooflines)
    EXPECT_EQ(roofline.bytes, values * roofline.element_bytes);
}

// A store order timed beside the roofline (the tiled order's runs) is listed with its fills but
// never becomes the roofline, even when it runs faster than every store fill.
TEST(BenchReport, StoreOrdersAreReportedNotRooflines) {
  const uint64_t values = 8192 * 512;
  std::map<std::string, Measured> measured;
  std::map<std::string, std::vector<double>> seconds;
  measured["roofline/plain-store/t/2B"] = {"plain-store", true,      "t", 512, 8192, 1, 2,
                                           values,        2 * values};
  seconds["roofline/plain-store/t/2B"] = {2.0, 2.0, 2.0};
  measured["roofline/runs/t/2B"] = {
      "stream-store-256B-runs", true, "t", 512, 8192, 1, 2, values, 2 * values};
  seconds["roofline/runs/t/2B"] = {1.0, 1.0, 1.0};
  const Report r = summarize(measured, seconds);
  ASSERT_EQ(r.rooflines.size(), 1u);
  EXPECT_EQ(r.rooflines[0].best, "plain-store");
  EXPECT_DOUBLE_EQ(r.rooflines[0].bytes_per_s.median, values);
  EXPECT_EQ(r.rooflines[0].fills.size(), 2u);
}

TEST(TableCases, ParseAcceptsPositionsTimesAnEvenWidth) {
  const auto c = parse_table_case("131072x4096");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->positions, 131072u);
  EXPECT_EQ(c->d_model, 4096);
  EXPECT_EQ(c->label, "131072x4096");
  for (const char* bad : {"", "x", "12x", "x12", "12x7", "0x8", "12x0", "12x8x2", "12 x8", "-1x8"})
    EXPECT_FALSE(parse_table_case(bad)) << bad;
}

}  // namespace
}  // namespace pev::bench
