// .npy headers: shapes, versions, Fortran order, every way Python spells the dict, NumPy's own
// files, and each syntax error of the dict as a one-line FileError.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "peverify/tables/npy_reader.h"
#include "peverify/tables/reader_test_util.h"

namespace pev {
namespace {

using testing_util::eighths_f4;
using testing_util::expect_bad_file;
using testing_util::expect_eighths;
using testing_util::kF4x23;
using testing_util::le;
using testing_util::npy_file;
using testing_util::read_bytes;
using testing_util::with_dict;

TEST(NpyReader, LeadingDimensionOfOneIsDropped) {
  const LoadedTable t = read_bytes(
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }", eighths_f4()),
      ".npy");
  expect_eighths(t);
  EXPECT_EQ(t.description, "npy <f4 [1, 2, 3]");
}

// Hugging Face saves caches as [1, 1, N, d] and GPT-NeoX as [N, 1, 1, d].
TEST(NpyReader, EveryExtraDimensionOfOneIsDropped) {
  for (const char* shape : {"(1, 1, 2, 3)", "(2, 1, 1, 3)", "(1, 2, 1, 3)"}) {
    const LoadedTable t = read_bytes(
        npy_file(std::string("{'descr': '<f4', 'fortran_order': False, 'shape': ") + shape + "}",
                 eighths_f4()),
        ".npy");
    expect_eighths(t);
  }
}

TEST(NpyReader, Versions2And3HaveFourByteHeaderLengths) {
  for (int major : {2, 3})
    expect_eighths(read_bytes(npy_file(kF4x23, eighths_f4(), major), ".npy"));
}

TEST(NpyReader, FortranOrderIsTransposed) {
  // Column-major [2, 3]: the columns (0, 3), (1, 4), (2, 5) in eighths.
  std::vector<uint64_t> bits;
  for (int i : {0, 3, 1, 4, 2, 5}) bits.push_back(std::bit_cast<uint32_t>(i / 8.0f));
  for (const char* shape : {"(2, 3)", "(1, 2, 3)"}) {
    const LoadedTable t = read_bytes(
        npy_file(std::string("{'descr': '<f4', 'fortran_order': True, 'shape': ") + shape + "}",
                 le(bits, 4)),
        ".npy");
    expect_eighths(t);
    EXPECT_EQ(t.bits(1), std::bit_cast<uint32_t>(0.125f)) << shape;
  }
}

TEST(NpyReader, AcceptsEveryWayPythonSpellsTheSameDict) {
  for (const std::string dict : {
           "{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<f4\"}",
           "{ 'descr' : '<f4' ,\t'fortran_order':False,'shape':( 2 ,3 , ) , }",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }",  // Python 2
       })
    expect_eighths(read_bytes(npy_file(dict, eighths_f4()), ".npy"));
}

// Files NumPy 1.24 wrote (tables/fuzz/corpus/make_corpus.py).
TEST(NpyReader, ReadsWhatNumPyWrites) {
  const std::string dir = "tables/fuzz/corpus/npy/";
  expect_eighths(read_table(dir + "f4_2x3.npy", {}));
  expect_eighths(read_table(dir + "f2_fortran_v3.npy", {}));
  expect_eighths(read_table(dir + "f4_bigendian_v2.npy", {}));
  const LoadedTable pe = read_table(dir + "f8_1x4x4.npy", {});
  ASSERT_EQ(pe.rows, 4u);
  EXPECT_EQ(pe.values[0], 0.0);
  EXPECT_EQ(pe.values[1], 1.0);
  EXPECT_NEAR(pe.values[4], std::sin(1.0), 1e-15);
  const LoadedTable u2 = read_table(dir + "u2_bf16.npy", {.dtype = Dtype::kBFloat16});
  for (const char* name : {"v2_bf16.npy", "lt_v2_bf16.npy"}) {
    const LoadedTable v2 = read_table(dir + name, {});
    EXPECT_EQ(v2.values, u2.values) << name;
  }
  for (size_t i = 0; i < pe.values.size(); ++i)
    EXPECT_NEAR(u2.values[i], pe.values[i], 0x1p-8) << i;
}

// Each entry: a header dict and a word its message must contain.
struct BadDict {
  const char* name;
  const char* dict;
  const char* needle;
};

class NpyBadHeader : public ::testing::TestWithParam<BadDict> {};

TEST_P(NpyBadHeader, IsOneLineFileError) {
  expect_bad_file(with_dict(GetParam().dict), ".npy", GetParam().needle);
}

INSTANTIATE_TEST_SUITE_P(
    Syntax, NpyBadHeader,
    ::testing::Values(
        BadDict{"NoOpeningBrace", "'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}",
                "start with '{'"},
        BadDict{"NoClosingBrace", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)",
                "expected ',' or '}'"},
        BadDict{"MissingColon", "{'descr' '<f4', 'fortran_order': False, 'shape': (2, 3)}",
                "expected ':'"},
        BadDict{"MissingComma", "{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3)}",
                "expected ',' or '}'"},
        BadDict{"DoubleComma", "{'descr': '<f4',, 'fortran_order': False, 'shape': (2, 3)}",
                "quoted key"},
        BadDict{"TabInKeyIsEscaped", "{'de\tscr' '<f4'}", "after the key 'de\\x09scr'"},
        BadDict{"UnquotedKey", "{descr: '<f4', 'fortran_order': False, 'shape': (2, 3)}",
                "quoted key"},
        BadDict{"UnterminatedString", "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}",
                "expected ',' or '}'"},
        BadDict{"StringRunsToTheEnd", "{'descr': '<f4", "unterminated string"},
        BadDict{"EscapeInString", "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2, 3)}",
                "escape"},
        BadDict{"DuplicateKey",
                "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}",
                "appears twice"},
        BadDict{"MissingDescr", "{'fortran_order': False, 'shape': (2, 3)}", "'descr' is missing"},
        BadDict{"MissingShape", "{'descr': '<f4', 'fortran_order': False}", "'shape' is missing"},
        BadDict{"MissingOrder", "{'descr': '<f4', 'shape': (2, 3)}", "'fortran_order' is missing"},
        BadDict{"UnknownKey", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}",
                "unexpected key 'x'"},
        BadDict{"ShapeIsAList", "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}",
                "not a list"},
        BadDict{"ShapeIsAnInt", "{'descr': '<f4', 'fortran_order': False, 'shape': (6)}",
                "not an int"},
        BadDict{"NegativeDimension", "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3)}",
                "non-negative"},
        BadDict{"LeadingZeros", "{'descr': '<f4', 'fortran_order': False, 'shape': (02, 3)}",
                "leading zeros"},
        BadDict{"Expression", "{'descr': '<f4', 'fortran_order': False, 'shape': (1*2, 3)}",
                "expected ',' or ')'"},
        BadDict{"HexDimension", "{'descr': '<f4', 'fortran_order': False, 'shape': (0x2, 3)}",
                "integer literal"},
        BadDict{"LongSuffixAfterSpace",
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2 L, 3)}",
                "expected ',' or ')'"},
        BadDict{"GarbageAfterDict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} x",
                "after the closing"},
        BadDict{"NonAsciiByte", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}\xc3\xa9",
                "non-ASCII byte \\xc3"},
        BadDict{"ControlByte", "{'descr': '<f4', 'fortran_order': False,\x01 'shape': (2, 3)}",
                "control byte \\x01"},
        BadDict{"OneDimension", "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)}",
                "expected shape [N, d] (extra dimensions of size 1 allowed), found [6]"},
        BadDict{"TwoLongDimensions",
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 2, 3)}",
                "found [1, 2, 2, 3]"},
        BadDict{"BatchOfTwo", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 3)}",
                "found [2, 2, 3]"},
        BadDict{"NoDimensions", "{'descr': '<f4', 'fortran_order': False, 'shape': ()}",
                "found []"},
        BadDict{"ZeroRows", "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3)}", "empty"},
        BadDict{"TooManyDimensions",
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
                "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
                "1,1,1,1,1,1,1,1,1,1)}",
                "too many dimensions"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace pev
