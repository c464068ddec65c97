// Helpers of the table readers' tests: files made byte by byte, and the one-line error check.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "peverify/tables/table_file.h"

namespace pev::testing_util {

// A path in the test's temporary directory, unique to the running test.
inline std::string temp_path(const std::string& suffix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : name)
    if (c == '/') c = '_';
  return ::testing::TempDir() + "/" + name + suffix;
}

inline std::string write_temp(const std::string& bytes, const std::string& suffix) {
  const std::string path = temp_path(suffix);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Reads bytes as a file named *suffix through the front end, as `peverify verify` would.
inline LoadedTable read_bytes(const std::string& bytes, const std::string& suffix,
                              const ReadOptions& opts = {}) {
  const std::string path = write_temp(bytes, suffix);
  LoadedTable t = read_table(path, opts);
  std::filesystem::remove(path);
  return t;
}

// The little-endian encodings of bits, `size` bytes each.
inline std::string le(const std::vector<uint64_t>& bits, int size) {
  std::string s;
  for (const uint64_t b : bits)
    for (int i = 0; i < size; ++i) s.push_back(static_cast<char>((b >> (8 * i)) & 0xff));
  return s;
}

// A .npy file with the given header dict (padded and '\n'-terminated as NumPy does) and data.
inline std::string npy_file(const std::string& dict, const std::string& data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string s = "\x93NUMPY";
  s.push_back(static_cast<char>(major));
  s.push_back('\0');
  s += le({header.size()}, major == 1 ? 2 : 4);
  return s + header + data;
}

// The .npy header of a [2, 3] '<f4' table, and its data: i/8 for i = 0..5 as float32 bits.
inline const std::string kF4x23 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

inline std::string eighths_f4() {
  std::vector<uint64_t> bits;
  for (int i = 0; i < 6; ++i) bits.push_back(std::bit_cast<uint32_t>(i / 8.0f));
  return le(bits, 4);
}

inline void expect_eighths(const LoadedTable& t) {
  ASSERT_EQ(t.rows, 2u);
  ASSERT_EQ(t.width, 3u);
  ASSERT_EQ(t.values.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.values[i], i / 8.0) << i;
}

// A .npy file of the eighths' data under another header dict.
inline std::string with_dict(const std::string& dict) { return npy_file(dict, eighths_f4()); }

// A .safetensors file: 8-byte little-endian header length, the JSON header, the data.
inline std::string safetensors_file(const std::string& json, const std::string& data) {
  return le({json.size()}, 8) + json + data;
}

// Runs f, which must throw FileError with a non-empty, one-line, printable message containing
// `needle`.
template <typename F>
void expect_file_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no FileError; expected one mentioning \"" << needle << "\"";
  } catch (const FileError& e) {
    const std::string m = e.what();
    EXPECT_FALSE(m.empty());
    for (const char c : m)
      EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "unprintable byte in message: " << m;
    EXPECT_NE(m.find(needle), std::string::npos) << "message: " << m;
  }
}

// The same for a file of these bytes read through the front end.
inline void expect_bad_file(const std::string& bytes, const std::string& suffix,
                            const std::string& needle, const ReadOptions& opts = {}) {
  expect_file_error([&] { read_bytes(bytes, suffix, opts); }, needle);
  std::filesystem::remove(temp_path(suffix));
}

}  // namespace pev::testing_util
