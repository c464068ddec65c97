#include "peverify/tables/table_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "peverify/tables/npy_writer.h"
#include "peverify/tables/reader_test_util.h"

namespace pev {
namespace {

using testing_util::expect_bad_file;
using testing_util::expect_file_error;
using testing_util::le;
using testing_util::npy_file;
using testing_util::read_bytes;
using testing_util::safetensors_file;
using testing_util::temp_path;

const std::string kNpy = npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (1, 2), }",
                                  le({0x3c00, 0x4000}, 2));
const std::string kSafetensors = safetensors_file(
    "{\"pe\":{\"dtype\":\"F16\",\"shape\":[1,2],\"data_offsets\":[0,4]}}", le({0x3c00, 0x4000}, 2));

TEST(TableFile, ContentDecidesTheFormatWhateverTheExtension) {
  for (const char* ext : {".npy", ".safetensors", ".bin", ""}) {
    EXPECT_EQ(read_bytes(kNpy, ext).description, "npy <f2 [1, 2]") << ext;
    EXPECT_EQ(read_bytes(kSafetensors, ext).description, "safetensors 'pe' F16 [1, 2]") << ext;
  }
}

TEST(TableFile, MessagesNameTheFile) {
  const std::string path = temp_path(".npy");
  write_npy(path, Dtype::kFloat32, 1, 1, {0});
  expect_file_error([&] { read_table(path, {.dtype = Dtype::kFloat64}); }, path + ": --dtype");
}

TEST(TableFile, MissingFile) {
  expect_file_error([] { read_table("no/such/table.npy", {}); },
                    "no/such/table.npy: No such file or directory");
}

TEST(TableFile, Directory) {
  expect_file_error([] { read_table(::testing::TempDir(), {}); }, "is a directory");
}

TEST(TableFile, NotARegularFile) {
  expect_file_error([] { read_table("/dev/null", {}); }, "not a regular file");
}

TEST(TableFile, ZipArchive) {
  expect_bad_file(std::string("PK\x03\x04", 4) + std::string(60, '\0'), ".npz", "zip archive");
}

TEST(TableFile, ControlCharactersInThePathAreEscaped) {
  expect_file_error([] { read_table("bad\nname\x1b.npy", {}); }, "bad\\x0aname\\x1b.npy");
}

TEST(TableFile, PrintableCutsLongText) {
  EXPECT_EQ(printable("abc", 2), "ab...");
  EXPECT_EQ(printable("\xff\t", 80), "\\xff\\x09");
}

TEST(TableFile, CheckedMultiplication) {
  EXPECT_EQ(checked_mul(uint64_t{1} << 32, uint64_t{1} << 31), uint64_t{1} << 63);
  EXPECT_EQ(checked_mul(uint64_t{1} << 32, uint64_t{1} << 32), std::nullopt);
  EXPECT_EQ(checked_mul(0, ~uint64_t{0}), 0u);
}

TEST(TableFile, MemorySourceRefusesReadsPastTheEnd) {
  const MemorySource src("abcd", "mem");
  unsigned char out[4];
  expect_file_error([&] { src.read(2, 3, out); }, "mem: read beyond");
  expect_file_error([&] { src.read(~uint64_t{0}, 2, out); }, "mem: read beyond");
}

}  // namespace
}  // namespace pev
