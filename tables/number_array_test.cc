// The numbers reader (tables/number_array.h): every integer and float type, negative and
// fractional values exact, and what is no number refused in one line.
#include "peverify/tables/number_array.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

namespace pev {
namespace {

// A .npy v1.0 file of `descr` and `shape` over `data`.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data,
                bool fortran = false) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

template <typename T>
std::string bytes(std::initializer_list<T> values) {
  std::string s;
  for (const T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

NumberArray read(const std::string& file) { return read_number_array(MemorySource(file, "x.npy")); }

TEST(NumberArray, ReadsIntegersAndFloatsExactly) {
  const NumberArray i = read(npy("<i2", "(3,)", bytes<int16_t>({-32, 0, 31})));
  EXPECT_EQ(i.values, (std::vector<double>{-32, 0, 31}));
  EXPECT_EQ(i.type, "int16");
  const NumberArray f = read(npy("<f4", "(2, 2)", bytes<float>({0.5f, -1.25f, 1e-3f, 999})));
  EXPECT_EQ(f.values[2], static_cast<double>(1e-3f));
  EXPECT_EQ(f.shape, (std::vector<uint64_t>{2, 2}));
  const NumberArray h = read(npy("<f2", "(1,)", bytes<uint16_t>({0x3c00})));  // 1.0
  EXPECT_EQ(h.values[0], 1.0);
  const NumberArray b = read(npy("<V2", "(1,)", bytes<uint16_t>({0x3f40})));  // bfloat16 0.75
  EXPECT_EQ(b.values[0], 0.75);
  EXPECT_EQ(b.type, "bfloat16");
  // Fortran order stores the transpose.
  const NumberArray t = read(npy("<i4", "(2, 3)", bytes<int32_t>({1, 4, 2, 5, 3, 6}), true));
  EXPECT_EQ(t.values, (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(NumberArray, RefusesWhatIsNoExactNumber) {
  const auto fails = [](const std::string& file, const std::string& words) {
    try {
      read(file);
      ADD_FAILURE() << "accepted; expected: " << words;
    } catch (const FileError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  fails(npy("<f8", "(2,)", bytes<double>({1.0, NAN})), "element 1 is not finite");
  fails(npy("<i8", "(1,)", bytes<int64_t>({(int64_t{1} << 53) + 1})), "beyond 2^53");
  fails(npy("<U1", "(1,)", "abcd"), "expected numbers");
  fails(npy("<f4", "(3,)", bytes<float>({1, 2})), "truncated");
  fails(npy("<f4", "(0,)", ""), "empty");
}

}  // namespace
}  // namespace pev
