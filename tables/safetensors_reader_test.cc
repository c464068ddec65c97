#include "peverify/tables/safetensors_reader.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/tables/reader_test_util.h"

namespace pev {
namespace {

using testing_util::expect_bad_file;
using testing_util::le;
using testing_util::read_bytes;
using testing_util::safetensors_file;

// One header entry: "NAME":{"dtype":...,"shape":[...],"data_offsets":[begin,end]}.
std::string entry(const std::string& name, const std::string& dtype, const std::string& shape,
                  uint64_t begin, uint64_t end) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
         ",\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(end) + "]}";
}

// 1, 2, ..., n as encodings of t.
std::vector<uint64_t> counting(Dtype t, int n) {
  std::vector<uint64_t> v;
  for (int i = 1; i <= n; ++i) v.push_back(encode_exact(i, t));
  return v;
}

void expect_counting(const LoadedTable& t, uint64_t rows, uint64_t width) {
  ASSERT_EQ(t.rows, rows);
  ASSERT_EQ(t.width, width);
  ASSERT_EQ(t.values.size(), rows * width);
  for (uint64_t i = 0; i < rows * width; ++i) EXPECT_EQ(t.values[i], static_cast<double>(i + 1));
}

struct DtypeCase {
  const char* name;  // as safetensors spells it
  Dtype dtype;
};

class SafetensorsDtype : public ::testing::TestWithParam<DtypeCase> {};

TEST_P(SafetensorsDtype, ReadsTheOnlyTensor) {
  const auto [name, dtype] = GetParam();
  const int size = traits_of(dtype).storage_bits / 8;
  const std::string file = safetensors_file("{" + entry("pe", name, "[2,3]", 0, 6 * size) + "}",
                                            le(counting(dtype, 6), size));
  const LoadedTable t = read_bytes(file, ".safetensors");
  EXPECT_EQ(t.dtype, dtype);
  EXPECT_EQ(t.description, std::string("safetensors 'pe' ") + name + " [2, 3]");
  expect_counting(t, 2, 3);
  EXPECT_EQ(t.bits(5), encode_exact(6, dtype));
  expect_counting(read_bytes(file, ".safetensors", {.dtype = dtype}), 2, 3);
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, SafetensorsDtype,
                         ::testing::Values(DtypeCase{"F64", Dtype::kFloat64},
                                           DtypeCase{"F32", Dtype::kFloat32},
                                           DtypeCase{"F16", Dtype::kFloat16},
                                           DtypeCase{"BF16", Dtype::kBFloat16}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(SafetensorsReader, LeadingDimensionOfOneAndMetadata) {
  const std::string file = safetensors_file(
      "{\"__metadata__\":{\"format\":\"pt\"}," + entry("pe", "F32", "[1,2,3]", 0, 24) + "}  ",
      le(counting(Dtype::kFloat32, 6), 4));
  expect_counting(read_bytes(file, ".safetensors"), 2, 3);
}

TEST(SafetensorsReader, SeveralTensorsNeedATensorName) {
  const std::string file = safetensors_file(
      "{" + entry("sin", "F16", "[1,2]", 0, 4) + "," + entry("pe", "F32", "[2,3]", 4, 28) + "}",
      le({0x3c00, 0x4000}, 2) + le(counting(Dtype::kFloat32, 6), 4));
  expect_bad_file(file, ".safetensors", "2 tensors ('pe', 'sin'): choose one with --tensor NAME");
  expect_counting(read_bytes(file, ".safetensors", {.tensor = "pe"}), 2, 3);
  EXPECT_EQ(read_bytes(file, ".safetensors", {.tensor = "sin"}).values,
            (std::vector<double>{1.0, 2.0}));
  expect_bad_file(file, ".safetensors", "no tensor named 'cos' (it holds 'pe', 'sin')",
                  {.tensor = "cos"});
}

TEST(SafetensorsReader, Uint16ReadsAsBfloat16OnRequest) {
  const std::string file =
      safetensors_file("{" + entry("pe", "U16", "[1,2]", 0, 4) + "}", le({0x3f80, 0xc000}, 2));
  expect_bad_file(file, ".safetensors", "--dtype bfloat16");
  const LoadedTable t = read_bytes(file, ".safetensors", {.dtype = Dtype::kBFloat16});
  EXPECT_EQ(t.values, (std::vector<double>{1.0, -2.0}));
  EXPECT_EQ(t.description, "safetensors 'pe' U16 as bfloat16 [1, 2]");
}

TEST(SafetensorsReader, NonFiniteValuesAreKept) {
  const LoadedTable t = read_bytes(
      safetensors_file("{" + entry("pe", "BF16", "[1,2]", 0, 4) + "}", le({0x7f80, 0x7fc1}, 2)),
      ".safetensors");
  EXPECT_TRUE(std::isinf(t.values[0]));
  EXPECT_TRUE(std::isnan(t.values[1]));
  EXPECT_EQ(t.bits(1), 0x7fc1u);
}

TEST(SafetensorsReader, GapsBetweenTensorsAreAllowed) {
  const std::string file =
      safetensors_file("{" + entry("pe", "F32", "[2,3]", 8, 32) + "}",
                       std::string(8, '\xee') + le(counting(Dtype::kFloat32, 6), 4) + "tail");
  expect_counting(read_bytes(file, ".safetensors"), 2, 3);
}

// Files assembled by tables/fuzz/corpus/make_corpus.py from NumPy's values.
TEST(SafetensorsReader, ReadsTheSeedCorpus) {
  const std::string dir = "tables/fuzz/corpus/safetensors/";
  const LoadedTable f32 = read_table(dir + "f32.safetensors", {});
  const LoadedTable f64 = read_table(dir + "f64_1xNxd.safetensors", {});
  const LoadedTable bf16 = read_table(dir + "multi.safetensors", {.tensor = "pe"});
  ASSERT_EQ(f64.values.size(), 16u);
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(f32.values[i], static_cast<float>(f64.values[i])) << i;
    EXPECT_NEAR(bf16.values[i], f64.values[i], 0x1p-8) << i;
  }
  EXPECT_EQ(read_table(dir + "multi.safetensors", {.tensor = "cos"}).width, 2u);
}

// ---- Hostile and malformed files ----

const std::string kData = le(counting(Dtype::kFloat32, 6), 4);

void expect_bad_header(const std::string& json, const std::string& needle,
                       const ReadOptions& opts = {}) {
  expect_bad_file(safetensors_file(json, kData), ".safetensors", needle, opts);
}

TEST(SafetensorsMalformed, ShorterThanTheLengthField) {
  expect_bad_file("\x05\x00\x00", ".safetensors", "too short");
}

TEST(SafetensorsMalformed, HeaderLengthBeyondFile) {
  expect_bad_file(le({1000}, 8) + "{}", ".safetensors", "runs past the end of the file");
  expect_bad_file(std::string(8, '\xff') + "{}", ".safetensors", "runs past the end");
}

TEST(SafetensorsMalformed, InvalidJson) {
  expect_bad_header("{\"pe\":{\"dtype\":\"F32\",}}", "not valid JSON");
  expect_bad_header("{\"pe\":", "not valid JSON");
  expect_bad_header(std::string("{\"pe\0\":1}", 9), "not valid JSON");
}

TEST(SafetensorsMalformed, NotAnObject) { expect_bad_header("[1, 2]", "not a JSON object"); }

TEST(SafetensorsMalformed, InvalidUtf8) {
  expect_bad_header("{\"p\xff\xfe\":" + entry("x", "F32", "[2,3]", 0, 24).substr(4) + "}",
                    "not valid JSON");
}

TEST(SafetensorsMalformed, DuplicateKeys) {
  const std::string pe = entry("pe", "F32", "[2,3]", 0, 24);
  expect_bad_header("{" + pe + "," + pe + "}", "the key 'pe' appears twice");
  expect_bad_header(
      "{\"pe\":{\"dtype\":\"F32\",\"dtype\":\"F16\",\"shape\":[2,3],\"data_offsets\":[0,24]}}",
      "the key 'dtype' appears twice");
}

TEST(SafetensorsMalformed, DeepNesting) {
  expect_bad_header("{\"pe\":" + std::string(100000, '[') + std::string(100000, ']') + "}",
                    "nests deeper");
}

TEST(SafetensorsMalformed, LongArray) {
  std::string shape = "[1";
  for (int i = 0; i < 100000; ++i) shape += ",1";
  expect_bad_header("{" + entry("pe", "F32", shape + "]", 0, 24) + "}", "more than 64 elements");
}

TEST(SafetensorsMalformed, NoTensors) {
  expect_bad_header("{\"__metadata__\":{}}", "holds no tensors");
  expect_bad_header("{}", "no tensor named 'pe' (the file holds none)", {.tensor = "pe"});
}

TEST(SafetensorsMalformed, EntryNotAnObject) {
  expect_bad_header("{\"pe\":3}", "not a JSON object");
}

TEST(SafetensorsMalformed, BadDtypeField) {
  expect_bad_header("{\"pe\":{\"shape\":[2,3],\"data_offsets\":[0,24]}}", "'dtype' is missing");
  expect_bad_header("{" + entry("pe", "I64", "[2,3]", 0, 24) + "}", "has dtype 'I64'");
  expect_bad_header("{" + entry("pe", "F32", "[2,3]", 0, 24) + "}", "does not match",
                    {.dtype = Dtype::kFloat16});
}

TEST(SafetensorsMalformed, BadShapeField) {
  expect_bad_header("{\"pe\":{\"dtype\":\"F32\",\"shape\":6,\"data_offsets\":[0,24]}}",
                    "'shape' is missing or not an array");
  expect_bad_header("{" + entry("pe", "F32", "[2,-3]", 0, 24) + "}", "not a non-negative");
  expect_bad_header("{" + entry("pe", "F32", "[2,3.0]", 0, 24) + "}", "not a non-negative");
  expect_bad_header("{" + entry("pe", "F32", "[6]", 0, 24) + "}", "found [6]");
  expect_bad_header("{" + entry("pe", "F32", "[2,2,3]", 0, 24) + "}", "found [2, 2, 3]");
  expect_bad_header("{" + entry("pe", "F32", "[0,3]", 0, 0) + "}", "is empty");
}

TEST(SafetensorsMalformed, BadDataOffsetsField) {
  for (const char* offsets : {"[0]", "[0,24,48]", "[-1,24]", "[0,24.0]", "\"0,24\"", "{}"})
    expect_bad_header(std::string("{\"pe\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":") +
                          offsets + "}}",
                      "'data_offsets' is not a pair");
}

TEST(SafetensorsMalformed, OffsetsOutOfRange) {
  expect_bad_header("{" + entry("pe", "F32", "[2,3]", 0, 28) + "}",
                    "[0, 28] lie outside the 24 bytes");
  expect_bad_header("{" + entry("pe", "F32", "[2,3]", 24, 0) + "}", "lie outside");
  expect_bad_header("{" + entry("pe", "F32", "[2,3]", 0, 24) + "," +
                        entry("far", "F32", "[1,1]", 18446744073709551611u, 18446744073709551615u) +
                        "}",
                    "'far': data_offsets");
}

TEST(SafetensorsMalformed, OverlappingTensors) {
  expect_bad_header(
      "{" + entry("pe", "F32", "[2,3]", 0, 24) + "," + entry("alias", "F32", "[1,2]", 16, 24) + "}",
      "tensors 'pe' and 'alias' overlap", {.tensor = "pe"});
}

TEST(SafetensorsMalformed, SizeDisagreesWithShape) {
  expect_bad_header("{" + entry("pe", "F32", "[2,2]", 0, 24) + "}",
                    "needs 16 bytes, its data_offsets span 24");
}

TEST(SafetensorsMalformed, HugeShapeIsCheckedBeforeAllocating) {
  expect_bad_header("{" + entry("pe", "F32", "[1099511627776,1099511627776]", 0, 24) + "}",
                    "needs over 2^64 bytes");
  expect_bad_header("{" + entry("pe", "F64", "[1,4294967296,268435456]", 0, 24) + "}",
                    "needs 9223372036854775808 bytes");
}

}  // namespace
}  // namespace pev
