// The precise strategy's vector sinks (float32 zipped and in runs, float16 and bfloat16 in every
// layout) against its general rows (fill_reference: each double rounded once by RowWriter), on
// every SIMD target: through the unrolled and the generic loops, odd vector counts, streamed
// stores, the fix-up and real models' recipes (A != 1). float32 rows are the very bits of the
// general rows. float16 and bfloat16 rows come from the float rotation (float_rotation-inl.h):
// each element is the general rows' or, where the two differ, its neighbour across a midpoint
// that lies within the float rotation's error bound (A 2^-22 (1 + 2^-18)) of the exact value, as
// the oracle says, and such elements are rare. The general rows' own accuracy is the oracle's
// business (precise_test, precise_recipes_test).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "hwy/highway.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "peverify/core/precise/precise_fill.h"
#include "peverify/core/row_writer.h"
#include "peverify/encoding/format.h"
#include "peverify/encoding/rope_models_testutil.h"
#include "peverify/encoding/spec.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"

namespace pev::core::precise {
namespace {

constexpr Layout kLayouts[] = {Layout::kInterleaved,  Layout::kHalves,       Layout::kRopeCos,
                               Layout::kRopeSin,      Layout::kRopeCosDup,   Layout::kRopeSinDup,
                               Layout::kRopeCosPairs, Layout::kRopeSinPairs, Layout::kRopeCosSin,
                               Layout::kPolar};
constexpr Dtype kOutputs[] = {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16};

std::vector<char> filled(bool reference, const TableSpec& spec, uint64_t rows, Dtype output,
                         size_t offset_bytes = 0) {
  const size_t bytes = rows * table_width(spec) * element_size(output);
  std::vector<char> buffer(bytes + 64 + offset_bytes, 0x5a);
  // 64-byte aligned plus the offset: aligned tables may stream, the others may not.
  char* base = buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
  char* out = base + offset_bytes;
  if (reference) {
    fill_reference(spec, rows, output, Conversion::kNearestEven, out);
  } else {
    fill(spec, rows, output, Conversion::kNearestEven, out);
  }
  return std::vector<char>(out, out + bytes);
}

std::string where(const TableSpec& spec, size_t element) {
  return "row " + std::to_string(element / table_width(spec)) + " column " +
         std::to_string(element % table_width(spec)) + " (position " +
         std::to_string(spec.start + element / table_width(spec)) + ")";
}

// The first element of a float32 table where the two differ, or "".
std::string first_difference(const std::vector<char>& got, const std::vector<char>& want,
                             const TableSpec& spec) {
  if (got == want) return "";
  for (size_t i = 0; i < got.size(); i += 4)
    if (std::memcmp(&got[i], &want[i], 4) != 0) return where(spec, i / 4);
  return "sizes differ";
}

// The first element of a 16-bit table that is neither the general rows' nor their neighbour
// across a midpoint within the float rotation's bound of the exact value, or "". Counts the
// neighbours in `others`. The oracle computes the exact values of the first kCheckedRows rows
// that differ (a streamed table's 8000 rows would take seconds a target); beyond them, elements
// must still be neighbours.
std::string first_unexplained(const std::vector<char>& got, const std::vector<char>& want,
                              const TableSpec& spec, Dtype output, uint64_t& others) {
  constexpr uint64_t kCheckedRows = 200;
  const size_t n = got.size() / 2, width = table_width(spec);
  std::vector<uint16_t> g(n), w(n);
  std::memcpy(g.data(), got.data(), 2 * n);
  std::memcpy(w.data(), want.data(), 2 * n);
  const double bound = std::ldexp(attention_factor(spec), -22) * (1 + std::ldexp(1.0, -18));
  const auto engine = oracle::make_fast_engine(spec, output);
  uint64_t checked_rows = 0, exact_row = UINT64_MAX;
  oracle::ExactTable exact;
  for (size_t i = 0; i < n; ++i) {
    if (g[i] == w[i]) continue;
    ++others;
    const double a = decode(g[i], output), b = decode(w[i], output);
    const double midpoint = (a + b) / 2;  // exact: 16-bit values widened to double
    if (std::fabs(a - b) > ulp_of(midpoint, output))
      return where(spec, i) + ": " + std::to_string(a) + " for " + std::to_string(b);
    const uint64_t row = i / width;
    if (row != exact_row) {
      if (checked_rows == kCheckedRows) continue;
      TableSpec one = spec;
      one.start = spec.start + row;
      exact = oracle::compute_table(*engine, one, 1, 1);
      exact_row = row;
      ++checked_rows;
    }
    const double x = exact.exact[i % width];
    if (std::fabs(x - midpoint) > bound)
      return where(spec, i) + ": " + std::to_string(a) + " for " + std::to_string(b) + ", exact " +
             std::to_string(x);
  }
  return "";
}

void expect_same(const TableSpec& spec, uint64_t rows, Dtype output, const std::string& what,
                 size_t offset_bytes = 0) {
  const std::vector<char> got = filled(false, spec, rows, output, offset_bytes);
  const std::vector<char> want = filled(true, spec, rows, output);
  uint64_t others = 0;
  const std::string diff = output == Dtype::kFloat32
                               ? first_difference(got, want, spec)
                               : first_unexplained(got, want, spec, output, others);
  const std::string context = what + " " + std::string(name_of(spec.layout)) + " " +
                              std::string(name_of(output)) + " d=" + std::to_string(spec.d_model) +
                              " start=" + std::to_string(spec.start);
  EXPECT_EQ(diff, "") << context;
  // About 1 in 10000 float16 values (1 in 60000 bfloat16) are (half_float_sinks-inl.h).
  EXPECT_LE(others, got.size() / 2 / 100) << context;
}

TableSpec make_spec(int d, Layout layout, uint64_t start) {
  TableSpec spec;
  spec.d_model = d;
  spec.layout = layout;
  spec.start = start;
  return spec;
}

class PreciseSinks : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(PreciseSinks);

// d 16: one vector per chunk (or less); 36 and 40: a last vector of N pairs where the 16-bit float
// rotation takes 2N (SSE4 and AVX2); 48: an odd number of vectors in runs on AVX-512; 80: a last
// chunk shorter than the others; 136: a full float chunk and a last vector of N pairs (AVX2);
// 512: full chunks, the unrolled loop. Starts at 0 (sin 0 is
// exactly 0: the fix-up) and around 355 and 5419351 (sin(pos) nearest zero for pair 0).
TEST_P(PreciseSinks, EveryLayoutAndOutputEqualsTheGeneralRows) {
  for (const Dtype output : kOutputs)
    for (const Layout layout : kLayouts)
      for (const int d : {16, 36, 40, 48, 80, 136, 512})
        for (const uint64_t start : {uint64_t{0}, uint64_t{355 - 100}, uint64_t{5419351 - 70}})
          expect_same(make_spec(d, layout, start), 150, output, "plain");
}

// Tables of kStreamBytes and more stream their stores (when aligned); an unaligned one may not.
TEST_P(PreciseSinks, StreamedAndUnalignedTablesEqualTheGeneralRows) {
  for (const Dtype output : kOutputs) {
    for (const Layout layout :
         {Layout::kInterleaved, Layout::kRopeCosDup, Layout::kRopeSinPairs, Layout::kRopeCosSin}) {
      const TableSpec spec = make_spec(512, layout, 1000);
      const uint64_t rows = kStreamBytes / (table_width(spec) * element_size(output)) + 70;
      expect_same(spec, rows, output, "streamed");
      expect_same(make_spec(512, layout, 7), 300, output, "unaligned", element_size(output));
    }
  }
}

// Rows in runs whose runs start a multiple of 4 KiB apart (d = 4096: 4 KiB in 16 bits, 8 KiB in
// float32): the block's rows are written one run at a time (runs_apart_4k).
TEST_P(PreciseSinks, RunsFourKiBApartEqualTheGeneralRows) {
  for (const Dtype output : kOutputs)
    for (const Layout layout : {Layout::kRopeCosDup, Layout::kHalves, Layout::kRopeSinDup})
      expect_same(make_spec(4096, layout, 355 - 100), 80, output, "4 KiB apart");
}

// Real models' caches: the attention factor scales anchors and fixed-up values alike.
TEST_P(PreciseSinks, RecipesEqualTheGeneralRows) {
  for (const models::RopeModel& m : models::every_rope_model())
    for (const Dtype output : kOutputs)
      for (const Layout layout : {Layout::kRopeCosSin, Layout::kRopeCosDup, Layout::kInterleaved})
        for (const uint64_t start : {uint64_t{0}, uint64_t{103993 - 50}})
          expect_same(spec_of(m.model, layout, start, 120), 120, output, m.name);
}

// Which rotation gives each 16-bit value is decided value by value (float_rotation-inl.h), so
// every x86 target with FMA (AVX2 and up) writes the same table bit for bit wherever rows are
// whole vectors of the widest target (d/2 a multiple of 16): the CI gate's records (d = 512) do
// not depend on the machine measuring them. Layouts: zipped, runs (one kind each), run by run.
TEST(PreciseTargets, EveryTargetWithFmaWritesTheSameTable) {
#if HWY_ARCH_X86
  std::vector<int64_t> targets;
  for (int64_t bits = HWY_TARGETS & hwy::SupportedTargets(); bits != 0; bits &= bits - 1)
    if ((bits & -bits) <= HWY_AVX2) targets.push_back(bits & -bits);
  if (targets.size() < 2) GTEST_SKIP() << "one FMA target on this machine: " << compiled_targets();
  for (const Dtype output : kOutputs) {
    for (const Layout layout : {Layout::kInterleaved, Layout::kRopeCosDup, Layout::kHalves}) {
      for (const int d : {64, 512, 4096}) {
        for (const uint64_t start : {uint64_t{0}, uint64_t{100000}, uint64_t{5419351 - 70}}) {
          const TableSpec spec = make_spec(d, layout, start);
          const uint64_t rows = d == 4096 ? 80 : 300;
          hwy::SetSupportedTargetsForTest(targets[0]);
          const std::vector<char> want = filled(false, spec, rows, output);
          for (size_t k = 1; k < targets.size(); ++k) {
            hwy::SetSupportedTargetsForTest(targets[k]);
            EXPECT_TRUE(filled(false, spec, rows, output) == want)
                << hwy::TargetName(targets[k]) << " against " << hwy::TargetName(targets[0]) << " "
                << name_of(layout) << " " << name_of(output) << " d=" << d << " start=" << start;
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
#else
  GTEST_SKIP() << "FMA targets are listed for x86 only";
#endif
}

}  // namespace
}  // namespace pev::core::precise
