// Helpers of the table readers' tests: files made byte by byte, and the one-line error check.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tables/table_file.h"

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
