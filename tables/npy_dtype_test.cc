// .npy element types: every dtype carried through bit for bit, bfloat16 and float16 from
// 16-bit patterns, complex64, big-endian data, non-finite values.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/tables/npy_reader.h"
#include "peverify/tables/npy_writer.h"
#include "peverify/tables/reader_test_util.h"

namespace pev {
namespace {

using testing_util::eighths_f4;
using testing_util::expect_bad_file;
using testing_util::expect_eighths;
using testing_util::le;
using testing_util::npy_file;
using testing_util::read_bytes;
using testing_util::temp_path;

// Encodings every reader must carry through unchanged: zeros of both signs, subnormals,
// extremes, infinities, NaNs with payloads, and a spread of ordinary patterns.
std::vector<uint64_t> interesting_bits(Dtype t) {
  const int bits = traits_of(t).storage_bits;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t inf = encode_exact(std::numeric_limits<double>::infinity(), t);
  std::vector<uint64_t> v = {0,
                             sign,
                             1,
                             sign | 1,
                             inf,
                             sign | inf,
                             inf | 1,
                             inf | (inf >> 1),
                             inf - 1,
                             encode_exact(1.0, t),
                             encode_exact(-0.5, t)};
  uint64_t x = 0x9E3779B97F4A7C15u;
  while (v.size() < 64) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    v.push_back((x ^ (x >> 31)) & mask);
  }
  return v;
}

class NpyRoundTrip : public ::testing::TestWithParam<Dtype> {};

TEST_P(NpyRoundTrip, WriterOutputReadsBackBitForBit) {
  const Dtype t = GetParam();
  const std::vector<uint64_t> bits = interesting_bits(t);
  const std::string path = temp_path(".npy");
  write_npy(path, t, 8, 8, bits);
  ReadOptions opts;
  if (t == Dtype::kBFloat16) opts.dtype = t;  // stored as '<u2'
  const LoadedTable table = read_table(path, opts);
  EXPECT_EQ(table.rows, 8u);
  EXPECT_EQ(table.width, 8u);
  EXPECT_EQ(table.dtype, t);
  EXPECT_EQ(table.description,
            "npy " + npy_descr(t) + (t == Dtype::kBFloat16 ? " as bfloat16" : "") + " [8, 8]");
  ASSERT_EQ(table.values.size(), bits.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    EXPECT_EQ(table.bits(i), bits[i]) << i;
    const double want = decode(bits[i], t);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(table.values[i])) << i;  // non-finite values are kept, not errors
    } else {
      EXPECT_EQ(std::bit_cast<uint64_t>(table.values[i]), std::bit_cast<uint64_t>(want)) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, NpyRoundTrip,
                         ::testing::Values(Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16,
                                           Dtype::kBFloat16),
                         [](const auto& info) { return std::string(name_of(info.param)); });

TEST(NpyReader, Uint16WithoutDtypeExplainsDtypeBfloat16) {
  const std::string path = temp_path(".npy");
  write_npy(path, Dtype::kBFloat16, 1, 2, {0x3f80, 0x4000});
  testing_util::expect_file_error([&] { read_table(path, {}); }, "--dtype bfloat16");
}

TEST(NpyReader, Uint16AndInt16ReadAsFloat16OrBfloat16OnRequest) {
  for (const char* descr : {"<u2", "<i2"}) {
    const std::string file = npy_file(
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (1, 2), }",
        le({0x3c00, 0x3f80}, 2));
    const LoadedTable h = read_bytes(file, ".npy", {.dtype = Dtype::kFloat16});
    EXPECT_EQ(h.values, (std::vector<double>{1.0, 1.875})) << descr;
    const LoadedTable b = read_bytes(file, ".npy", {.dtype = Dtype::kBFloat16});
    EXPECT_EQ(b.values, (std::vector<double>{0.0078125, 1.0})) << descr;
    expect_bad_file(file, ".npy", "cannot read", {.dtype = Dtype::kFloat32});
  }
}

TEST(NpyReader, VoidOfTwoBytesIsBfloat16AsMlDtypesSavesIt) {
  for (const char* descr : {"<V2", "|V2"}) {
    const std::string file = npy_file(
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (1, 2), }",
        le({0x3f80, 0xc000}, 2));
    const LoadedTable t = read_bytes(file, ".npy");
    EXPECT_EQ(t.dtype, Dtype::kBFloat16);
    EXPECT_EQ(t.values, (std::vector<double>{1.0, -2.0})) << descr;
    EXPECT_EQ(read_bytes(file, ".npy", {.dtype = Dtype::kFloat16}).dtype, Dtype::kFloat16);
  }
}

// Meta's freqs_cis: complex64 [N, d/2], read as [N, d] real/imaginary pairs.
TEST(NpyReader, ComplexValuesAreReadAsRealImaginaryPairs) {
  const LoadedTable t =
      read_bytes(npy_file("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3)}",
                          std::string(eighths_f4()) + std::string(eighths_f4())),
                 ".npy");
  EXPECT_TRUE(t.complex);
  EXPECT_EQ(t.rows, 2u);
  EXPECT_EQ(t.width, 6u);
}

TEST(NpyReader, BigEndianDataIsByteSwapped) {
  std::string data = eighths_f4();
  for (size_t i = 0; i < data.size(); i += 4) std::reverse(data.begin() + i, data.begin() + i + 4);
  const LoadedTable t = read_bytes(
      npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", data), ".npy");
  expect_eighths(t);
  EXPECT_EQ(t.bits(1), std::bit_cast<uint32_t>(0.125f));  // encodings kept little-endian
  const LoadedTable h =
      read_bytes(npy_file("{'descr': '>f2', 'fortran_order': False, 'shape': (1, 1), }",
                          std::string("\x3c\0", 2)),
                 ".npy");
  EXPECT_EQ(h.values[0], 1.0);
}

TEST(NpyReader, NonFiniteValuesAreKept) {
  const LoadedTable t =
      read_bytes(npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (1, 3), }",
                          le({0x7c00, 0xfc00, 0x7e00}, 2)),
                 ".npy");
  EXPECT_EQ(t.values[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(t.values[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(t.values[2]));
}

}  // namespace
}  // namespace pev
