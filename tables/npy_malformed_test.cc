// Hostile and malformed .npy files: one FileError with a one-line message each, and no size a
// header claims trusted before it is checked against the file.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "peverify/encoding/format.h"
#include "peverify/tables/npy_reader.h"
#include "peverify/tables/reader_test_util.h"

namespace pev {
namespace {

using testing_util::expect_bad_file;
using testing_util::kF4x23;
using testing_util::npy_file;
using testing_util::with_dict;

TEST(NpyMalformed, EmptyFile) { expect_bad_file("", ".npy", "empty"); }

TEST(NpyMalformed, RandomBytes) {
  std::string junk;
  uint32_t x = 12345;
  for (int i = 0; i < 300; ++i)
    junk.push_back(static_cast<char>((x = x * 1103515245 + 12345) >> 16));
  expect_bad_file(junk, ".npy", "not a .npy file");
  expect_bad_file(junk, ".bin", "neither a .npy nor a .safetensors file");
}

TEST(NpyMalformed, UnsupportedVersion) {
  std::string file = with_dict(kF4x23);
  file[6] = 4;
  expect_bad_file(file, ".npy", "version 4.0");
  file[6] = 1;
  file[7] = 1;
  expect_bad_file(file, ".npy", "version 1.1");
}

TEST(NpyMalformed, TruncatedPreamble) {
  expect_bad_file(std::string("\x93NUMPY\x01\x00\x76", 9), ".npy", "truncated");
  expect_bad_file(std::string("\x93NUMPY\x02\x00\x76\x00", 10), ".npy", "truncated");
}

TEST(NpyMalformed, HeaderLengthBeyondFile) {
  std::string file = with_dict(kF4x23);
  file[8] = '\xff';
  file[9] = '\xff';
  expect_bad_file(file, ".npy", "runs past the end of the file");
  expect_bad_file(std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14), ".npy", "past the end");
}

TEST(NpyMalformed, TruncatedData) {
  const std::string file = with_dict(kF4x23);
  expect_bad_file(file.substr(0, file.size() - 1), ".npy", "needs 24 bytes of data");
}

TEST(NpyMalformed, TrailingBytes) {
  expect_bad_file(with_dict(kF4x23) + "xyz", ".npy", "3 bytes follow the data");
}

TEST(NpyMalformed, HugeShapeIsCheckedAgainstTheFileBeforeAllocating) {
  expect_bad_file(
      with_dict("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1048576)}"),
      ".npy", "needs 9223372036854775808 bytes");
}

TEST(NpyMalformed, ShapeProductOverflows) {
  expect_bad_file(
      with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775808, 4)}"),
      ".npy", "over 2^64");
  expect_bad_file(
      with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551616, 4)}"),
      ".npy", "does not fit in 64 bits");
}

TEST(NpyMalformed, UnsupportedDtypes) {
  for (const char* descr : {"<i4", "<c4", "|b1", "<f16", "|O", "=f4", "|f4", "<U8", "", "<V4"})
    expect_bad_file(with_dict(std::string("{'descr': '") + descr +
                              "', 'fortran_order': False, 'shape': (2, 3)}"),
                    ".npy", "dtype");
}

TEST(NpyMalformed, StructuredDtype) {
  expect_bad_file(with_dict("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3)}"),
                  ".npy", "structured");
}

TEST(NpyMalformed, DtypeOptionContradictsTheFile) {
  expect_bad_file(with_dict(kF4x23), ".npy", "does not match", {.dtype = Dtype::kFloat16});
  expect_bad_file(npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (1, 1)}", "\0\0"),
                  ".npy", "does not match", {.dtype = Dtype::kBFloat16});
}

TEST(NpyMalformed, TensorOptionOnNpy) {
  expect_bad_file(with_dict(kF4x23), ".npy", "--tensor", {.tensor = "pe"});
}

TEST(NpyMalformed, NulByteInHeader) {
  expect_bad_file(with_dict(std::string("{'descr': '<f4'\0, 'fortran_order': False}", 41)), ".npy",
                  "control byte \\x00");
}

TEST(NpyMalformed, FortranOrderNotABool) {
  expect_bad_file(with_dict("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3)}"), ".npy",
                  "True or False");
  expect_bad_file(with_dict("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2, 3)}"), ".npy",
                  "True or False");
}

}  // namespace
}  // namespace pev
