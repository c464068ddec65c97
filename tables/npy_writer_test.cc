#include "peverify/tables/npy_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "peverify/support/atomic_file.h"
#include "peverify/tables/table_file.h"

namespace pev {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(NpyWriter, WritesVersion1HeaderPaddedTo64AndLittleEndianData) {
  const std::string path = testing::TempDir() + "/npy_writer_test.npy";
  write_npy(path, Dtype::kFloat16, 2, 3, {0x3c00, 0x0001, 0x8000, 0x7bff, 0, 0xc000});
  const std::string s = slurp(path);
  ASSERT_EQ(s.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header_len = static_cast<unsigned char>(s[8]) | static_cast<unsigned char>(s[9])
                                                                   << 8;
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string header = s.substr(10, header_len);
  EXPECT_NE(header.find("'descr': '<f2'"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos) << header;
  EXPECT_EQ(header.back(), '\n');
  ASSERT_EQ(s.size(), 10 + header_len + 12);
  EXPECT_EQ(static_cast<unsigned char>(s[10 + header_len]), 0x00);
  EXPECT_EQ(static_cast<unsigned char>(s[10 + header_len + 1]), 0x3c);
  std::filesystem::remove(path);
}

// Meta's freqs_cis: float32 (cos, sin) pairs stored as complex64 [N, d/2], which reads back as
// the same [N, d] values.
TEST(NpyWriter, ComplexPairsAreStoredAsComplex64AndReadBack) {
  const std::string path = testing::TempDir() + "/npy_writer_complex.npy";
  const std::vector<uint64_t> bits = {0x3f800000, 0,          0x3f000000, 0xbf000000,
                                      0x3e800000, 0x40000000, 0x80000000, 0x7f800000};
  write_npy_rows(
      path, Dtype::kFloat32, 2, 4,
      [&](uint64_t first, uint64_t n, uint64_t* out) {
        std::copy_n(bits.begin() + static_cast<std::ptrdiff_t>(first * 4), n * 4, out);
      },
      /*complex_pairs=*/true);
  const std::string s = slurp(path);
  EXPECT_NE(s.find("'descr': '<c8', 'fortran_order': False, 'shape': (2, 2)"), std::string::npos)
      << s.substr(0, 128);
  const LoadedTable t = read_table(path, {});
  EXPECT_TRUE(t.complex);
  EXPECT_EQ(t.dtype, Dtype::kFloat32);
  ASSERT_EQ(t.rows, 2u);
  ASSERT_EQ(t.width, 4u);
  for (size_t i = 0; i < bits.size(); ++i) EXPECT_EQ(t.bits(i), bits[i]) << i;
  EXPECT_THROW(write_npy_rows(path, Dtype::kFloat16, 2, 4, {}, true), std::invalid_argument);
  std::filesystem::remove(path);
}

TEST(NpyWriter, BFloat16IsStoredAsUint16Bits) { EXPECT_EQ(npy_descr(Dtype::kBFloat16), "<u2"); }

TEST(AtomicFile, AFailedWriteLeavesNothingBehind) {
  const std::string dir = testing::TempDir() + "/atomic_file_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/out.bin";
  EXPECT_THROW(write_file_atomically(path,
                                     [](std::ostream& out) {
                                       out << "half";
                                       throw FileError("interrupted");
                                     }),
               FileError);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  EXPECT_THROW(write_file_atomically(dir + "/no/such/dir/out.bin", [](std::ostream&) {}),
               FileError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pev
