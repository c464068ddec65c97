// Position ids (.npy) as hostile input: every integer type NumPy writes, either byte order, C or
// Fortran order, [N] and [3, N] with dimensions of size 1; floats, negative ids, other shapes and
// short files refused in one line.
#include "peverify/tables/position_ids.h"

#include <gtest/gtest.h>

#include "peverify/tables/reader_test_util.h"

namespace pev {
namespace {

using testing_util::le;
using testing_util::npy_file;

RowPositions ids(const std::string& dict, const std::string& data) {
  const std::string bytes = npy_file(dict, data);
  return read_position_ids(MemorySource(bytes, "ids.npy"));
}

std::string refusal(const std::string& dict, const std::string& data) {
  try {
    ids(dict, data);
  } catch (const FileError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PositionIds, OneStreamInEveryIntegerType) {
  EXPECT_EQ(
      ids("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", le({5, 0, 9}, 8)).streams,
      (std::vector<std::vector<uint64_t>>{{5, 0, 9}}));
  EXPECT_EQ(ids("{'descr': '>i4', 'fortran_order': False, 'shape': (1, 2), }",
                std::string("\0\0\1\0\0\0\0\7", 8))
                .streams,
            (std::vector<std::vector<uint64_t>>{{256, 7}}));
  EXPECT_EQ(ids("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", "\xff\x01").streams,
            (std::vector<std::vector<uint64_t>>{{255, 1}}));
  EXPECT_EQ(
      ids("{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", le({65535}, 2)).streams[0],
      std::vector<uint64_t>{65535});
}

TEST(PositionIds, ThreeStreamsInCAndFortranOrder) {
  const auto c = ids("{'descr': '<i4', 'fortran_order': False, 'shape': (3, 1, 2), }",
                     le({1, 2, 3, 4, 5, 6}, 4));
  EXPECT_EQ(c.streams, (std::vector<std::vector<uint64_t>>{{1, 2}, {3, 4}, {5, 6}}));
  const auto f =
      ids("{'descr': '<i4', 'fortran_order': True, 'shape': (3, 2), }", le({1, 3, 5, 2, 4, 6}, 4));
  EXPECT_EQ(f.streams, c.streams);
}

TEST(PositionIds, RefusesWhatIsNotIds) {
  EXPECT_NE(refusal("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", le({0, 0}, 4))
                .find("must be integers"),
            std::string::npos);
  EXPECT_NE(refusal("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", le({3, 0xfffe}, 2))
                .find("position id -2 at row 1 is negative"),
            std::string::npos);
  EXPECT_NE(
      refusal("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", le({0, 1, 2, 3}, 8))
          .find("shape [N] or [3, N]"),
      std::string::npos);
  EXPECT_NE(refusal("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", le({0, 1}, 8))
                .find("truncated"),
            std::string::npos);
  EXPECT_NE(refusal("{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }",
                    le({uint64_t{1} << 60}, 8))
                .find("beyond 2^53"),
            std::string::npos);
  EXPECT_NE(refusal("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", le({0, 0}, 8))
                .find("bytes follow"),
            std::string::npos);
}

}  // namespace
}  // namespace pev
