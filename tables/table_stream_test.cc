// The streaming reader gives, block by block, exactly what the whole-file reader gives.
#include "peverify/tables/table_stream.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "peverify/tables/reader_test_util.h"

namespace pev {
namespace {

using testing_util::le;
using testing_util::npy_file;
using testing_util::read_bytes;
using testing_util::safetensors_file;

// Every block split of the table's rows gives the whole reader's values, bit for bit.
void expect_same_rows(const std::string& bytes, const std::string& suffix,
                      const ReadOptions& opts = {}) {
  const LoadedTable whole = read_bytes(bytes, suffix, opts);
  const TableStream s =
      open_table(std::make_unique<MemorySource>(bytes, "t" + suffix), "t" + suffix, opts);
  ASSERT_EQ(s.rows(), whole.rows);
  ASSERT_EQ(s.width(), whole.width);
  EXPECT_EQ(s.description(), whole.description);
  for (uint64_t block = 1; block <= s.rows(); ++block) {
    std::vector<double> got(s.rows() * s.width());
    for (uint64_t first = 0; first < s.rows(); first += block)
      s.read_rows(first, std::min(block, s.rows() - first), got.data() + first * s.width());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(whole.values[i]))
          << suffix << " element " << i << " in blocks of " << block;
  }
}

TEST(TableStream, CFortranBigEndianAndEveryFormatReadAsTheWholeReaderDoes) {
  // 3 rows x 2: +0, -0, NaN, Inf, a subnormal and an ordinary value of each format.
  expect_same_rows(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }",
                            le({0, 0x80000000, 0x7fc00001, 0x7f800000, 1, 0x3f400000}, 4)),
                   ".npy");
  expect_same_rows(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }",
                            le({0, 0x80000000, 0x7fc00001, 0x7f800000, 1, 0x3f400000}, 4)),
                   ".npy");
  expect_same_rows(npy_file("{'descr': '>f8', 'fortran_order': False, 'shape': (3, 2), }",
                            std::string("\x3f\xe8\0\0\0\0\0\0", 8) + std::string(40, '\x01')),
                   ".npy");
  expect_same_rows(npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (1, 3, 2), }",
                            le({0x8000, 0x0001, 0x7c00, 0x7e00, 0x3c00, 0xbc01}, 2)),
                   ".npy");
  expect_same_rows(safetensors_file("{\"pe\":{\"dtype\":\"BF16\",\"shape\":[3,2],"
                                    "\"data_offsets\":[0,12]}}",
                                    le({0x8000, 0x0001, 0x7f80, 0x7fc1, 0x3f80, 0xbf81}, 2)),
                   ".safetensors");
}

TEST(TableStream, RowsBeyondTheTableAreAnError) {
  const std::string bytes =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }", le({0, 0}, 4));
  const TableStream s = open_table(std::make_unique<MemorySource>(bytes, "t.npy"), "t.npy", {});
  std::vector<double> out(3);
  testing_util::expect_file_error([&] { s.read_rows(1, 2, out.data()); }, "beyond the end");
}

}  // namespace
}  // namespace pev
