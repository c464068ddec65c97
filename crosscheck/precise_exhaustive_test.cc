// Bigger samples of the precise strategy against the MPFR oracle (`ctest -L exhaustive`, a few
// minutes on 2 cores): whole tables, dense log-scale blocks up to 2^24 for several d, bases and
// both schedules, random positions, every output type and layout, and the real models' rotary
// caches.
// Prints the worst element of each group.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "peverify/core/precise/plan.h"
#include "peverify/crosscheck/precise_testutil.h"
#include "peverify/encoding/rope_models_testutil.h"

namespace pev::core::precise {
namespace {

constexpr uint64_t kFaithfulLimit = uint64_t{1} << 24;

TableSpec make_spec(int d, double base, Schedule schedule, uint64_t start = 0) {
  TableSpec spec;
  spec.d_model = d;
  spec.base = base;
  spec.schedule = schedule;
  spec.start = start;
  return spec;
}

void report(const char* group, const Implementation& impl, const TableSpec& spec,
            const WorstElement& w) {
  fmt::print("{:<17} {:9} elements, {} not correctly rounded; worst {}\n", group, w.elements,
             w.misrounded, describe(impl, spec, w));
}

TEST(ExhaustivePrecise, WholeTablesAreFaithful) {
  for (const Dtype output : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    const Implementation& impl = precise_entry(output);
    for (const auto& [d, rows] : {std::pair{64, 65536}, std::pair{512, 8192}}) {
      if (output != Dtype::kFloat32 && d == 64) continue;
      const TableSpec spec = make_spec(d, 1e4, Schedule::kPaper);
      const WorstElement w = worst_against_oracle(impl, spec, rows);
      report("whole table", impl, spec, w);
      EXPECT_LT(w.ulp, 1.0) << describe(impl, spec, w);
    }
  }
}

TEST(ExhaustivePrecise, DenseBlocksUpTo2To24AreFaithful) {
  for (const Dtype output : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    const Implementation& impl = precise_entry(output);
    for (const int d : {64, 512, 4096}) {
      for (const double base : {1e4, 5e5, 1e6}) {
        for (const Schedule schedule : {Schedule::kPaper, Schedule::kT2T}) {
          const uint64_t rows = d == 4096 ? 4 : 32;
          const int per_octave = d == 4096 ? 2 : 6;
          WorstElement worst;
          TableSpec worst_spec;
          for (const uint64_t start : sample_starts(kFaithfulLimit, per_octave, rows)) {
            const TableSpec spec = make_spec(d, base, schedule, start);
            const WorstElement w = worst_against_oracle(impl, spec, rows);
            EXPECT_LT(w.ulp, 1.0) << describe(impl, spec, w);
            if (w.ulp > worst.ulp) worst_spec = spec;
            worst.merge(w);
          }
          report("dense blocks", impl, worst_spec, worst);
        }
      }
    }
  }
}

// Every layout of the 16-bit outputs (each sink shape, float-first and double), random blocks.
TEST(ExhaustivePrecise, EveryLayoutIsFaithfulAtRandomPositions) {
  std::mt19937_64 rng(20240613);  // fixed: a failure replays
  for (const Dtype output : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32}) {
    const Implementation& impl = precise_entry(output);
    for (int layout = 0; layout <= static_cast<int>(Layout::kPolar); ++layout) {
      WorstElement worst;
      TableSpec worst_spec;
      for (int i = 0; i < 200; ++i) {
        TableSpec spec = make_spec(i % 2 ? 512 : 128, i % 3 ? 1e4 : 5e5, Schedule::kPaper,
                                   rng() % (kFaithfulLimit - 70));
        spec.layout = static_cast<Layout>(layout);
        const WorstElement w = worst_against_oracle(impl, spec, 70);
        EXPECT_LT(w.ulp, 1.0) << describe(impl, spec, w);
        if (w.ulp > worst.ulp) worst_spec = spec;
        worst.merge(w);
      }
      report(std::string(name_of(static_cast<Layout>(layout))).c_str(), impl, worst_spec, worst);
    }
  }
}

TEST(ExhaustivePrecise, RandomPositionsAndWidthsAreFaithful) {
  std::mt19937_64 rng(20240607);  // fixed: a failure replays
  for (const Dtype output : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    const Implementation& impl = precise_entry(output);
    WorstElement worst;
    TableSpec worst_spec;
    for (int i = 0; i < 3000; ++i) {
      const int d = 2 * static_cast<int>(1 + rng() % 80);
      const double base = i % 3 == 0 ? 1e4 : i % 3 == 1 ? 5e5 : 1e6;
      const Schedule schedule = d >= 4 && i % 2 ? Schedule::kT2T : Schedule::kPaper;
      const uint64_t start = rng() % (kFaithfulLimit - 3);
      const TableSpec spec = make_spec(d, base, schedule, start);
      const WorstElement w = worst_against_oracle(impl, spec, 3);
      EXPECT_LT(w.ulp, 1.0) << describe(impl, spec, w);
      if (w.ulp > worst.ulp) worst_spec = spec;
      worst.merge(w);
    }
    report("random positions", impl, worst_spec, worst);
  }
}

TEST(ExhaustivePrecise, RealModelCachesAreFaithful) {
  for (const models::RopeModel& m : models::every_rope_model()) {
    for (const Dtype output : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
      const Implementation& impl = precise_entry(output);
      const TableSpec head = spec_of(m.model, Layout::kRopeCosSin, 0, 8192);
      WorstElement worst = worst_against_oracle(impl, head, 8192);
      EXPECT_LT(worst.ulp, 1.0) << describe(impl, head, worst);
      TableSpec worst_spec = head;
      for (const uint64_t start : sample_starts(kFaithfulLimit, 4, 32)) {
        TableSpec spec = head;
        spec.start = start;
        const WorstElement w = worst_against_oracle(impl, spec, 32);
        EXPECT_LT(w.ulp, 1.0) << describe(impl, spec, w);
        if (w.ulp > worst.ulp) worst_spec = spec;
        worst.merge(w);
      }
      report(m.name.c_str(), impl, worst_spec, worst);
    }
  }
}

}  // namespace
}  // namespace pev::core::precise
