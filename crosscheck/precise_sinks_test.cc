// The precise strategy's vector sinks (float32 zipped and in runs, float16 and bfloat16 in every
// layout) give the very bits of its general rows (fill_reference: each double rounded once by
// RowWriter), on every SIMD target: through the unrolled and the generic loops, odd vector counts,
// streamed stores, the fix-up and real models' recipes (A != 1). The general rows' own accuracy
// is the oracle's business (precise_test, precise_recipes_test); this proves the fast paths round
// the same doubles the same way.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/precise/precise_fill.h"
#include "core/rope_models_testutil.h"
#include "core/row_writer.h"
#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"

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

// The first element where the two differ, or "".
std::string first_difference(const std::vector<char>& got, const std::vector<char>& want,
                             const TableSpec& spec, Dtype output) {
  if (got == want) return "";
  const size_t size = element_size(output);
  for (size_t i = 0; i < got.size(); i += size) {
    if (std::memcmp(&got[i], &want[i], size) == 0) continue;
    const size_t element = i / size;
    return "row " + std::to_string(element / table_width(spec)) + " column " +
           std::to_string(element % table_width(spec)) + " (position " +
           std::to_string(spec.start + element / table_width(spec)) + ")";
  }
  return "sizes differ";
}

void expect_same(const TableSpec& spec, uint64_t rows, Dtype output, const std::string& what,
                 size_t offset_bytes = 0) {
  const std::string diff = first_difference(filled(false, spec, rows, output, offset_bytes),
                                            filled(true, spec, rows, output), spec, output);
  EXPECT_EQ(diff, "") << what << " " << name_of(spec.layout) << " " << name_of(output)
                      << " d=" << spec.d_model << " start=" << spec.start;
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

// d 16: one vector per chunk (or less); 48: an odd number of vectors in runs on AVX-512; 80: a
// last chunk shorter than the others; 512: full chunks, the unrolled loop. Starts at 0 (sin 0 is
// exactly 0: the fix-up) and around 355 and 5419351 (sin(pos) nearest zero for pair 0).
TEST_P(PreciseSinks, EveryLayoutAndOutputEqualsTheGeneralRows) {
  for (const Dtype output : kOutputs)
    for (const Layout layout : kLayouts)
      for (const int d : {16, 48, 80, 512})
        for (const uint64_t start : {uint64_t{0}, uint64_t{355 - 100}, uint64_t{5419351 - 70}})
          expect_same(make_spec(d, layout, start), 150, output, "plain");
}

// Tables of 4 MiB and more stream their stores (when aligned); an unaligned one may not.
TEST_P(PreciseSinks, StreamedAndUnalignedTablesEqualTheGeneralRows) {
  for (const Dtype output : kOutputs) {
    for (const Layout layout :
         {Layout::kInterleaved, Layout::kRopeCosDup, Layout::kRopeSinPairs, Layout::kRopeCosSin}) {
      const TableSpec spec = make_spec(512, layout, 1000);
      const uint64_t rows = (uint64_t{4} << 20) / (table_width(spec) * element_size(output)) + 70;
      expect_same(spec, rows, output, "streamed");
      expect_same(make_spec(512, layout, 7), 300, output, "unaligned", element_size(output));
    }
  }
}

// Real models' caches: the attention factor scales anchors and fixed-up values alike.
TEST_P(PreciseSinks, RecipesEqualTheGeneralRows) {
  for (const models::RopeModel& m : models::every_rope_model())
    for (const Dtype output : kOutputs)
      for (const Layout layout : {Layout::kRopeCosSin, Layout::kRopeCosDup, Layout::kInterleaved})
        for (const uint64_t start : {uint64_t{0}, uint64_t{103993 - 50}})
          expect_same(spec_of(m.model, layout, start, 120), 120, output, m.name);
}

}  // namespace
}  // namespace pev::core::precise
