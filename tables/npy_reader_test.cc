#include "tables/npy_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "encoding/format.h"
#include "tables/npy_writer.h"
#include "tables/reader_test_util.h"

namespace pev {
namespace {

using testing_util::expect_bad_file;
using testing_util::le;
using testing_util::npy_file;
using testing_util::read_bytes;
using testing_util::temp_path;

const std::string kF4x23 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

// i/8 for i = 0..5 as float32 bits: the data of a [2, 3] '<f4' table.
std::string eighths_f4() {
  std::vector<uint64_t> bits;
  for (int i = 0; i < 6; ++i) bits.push_back(std::bit_cast<uint32_t>(i / 8.0f));
  return le(bits, 4);
}

void expect_eighths(const LoadedTable& t) {
  ASSERT_EQ(t.rows, 2u);
  ASSERT_EQ(t.width, 3u);
  ASSERT_EQ(t.values.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.values[i], i / 8.0) << i;
}

// Encodings every reader must carry through unchanged: zeros of both signs, subnormals,
// extremes, infinities, NaNs with payloads, and a spread of ordinary patterns.
std::vector<uint64_t> interesting_bits(Dtype t) {
  const int bits = traits_of(t).storage_bits;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t inf = encode_exact(std::numeric_limits<double>::infinity(), t);
  std::vector<uint64_t> v = {0,
                             sign,
                             1,
                             sign | 1,
                             inf,
                             sign | inf,
                             inf | 1,
                             inf | (inf >> 1),
                             inf - 1,
                             encode_exact(1.0, t),
                             encode_exact(-0.5, t)};
  uint64_t x = 0x9E3779B97F4A7C15u;
  while (v.size() < 64) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    v.push_back((x ^ (x >> 31)) & mask);
  }
  return v;
}

class NpyRoundTrip : public ::testing::TestWithParam<Dtype> {};

TEST_P(NpyRoundTrip, WriterOutputReadsBackBitForBit) {
  const Dtype t = GetParam();
  const std::vector<uint64_t> bits = interesting_bits(t);
  const std::string path = temp_path(".npy");
  write_npy(path, t, 8, 8, bits);
  ReadOptions opts;
  if (t == Dtype::kBFloat16) opts.dtype = t;  // stored as '<u2'
  const LoadedTable table = read_table(path, opts);
  EXPECT_EQ(table.rows, 8u);
  EXPECT_EQ(table.width, 8u);
  EXPECT_EQ(table.dtype, t);
  EXPECT_EQ(table.description,
            "npy " + npy_descr(t) + (t == Dtype::kBFloat16 ? " as bfloat16" : "") + " [8, 8]");
  ASSERT_EQ(table.values.size(), bits.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    EXPECT_EQ(table.bits(i), bits[i]) << i;
    const double want = decode(bits[i], t);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(table.values[i])) << i;  // non-finite values are kept, not errors
    } else {
      EXPECT_EQ(std::bit_cast<uint64_t>(table.values[i]), std::bit_cast<uint64_t>(want)) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, NpyRoundTrip,
                         ::testing::Values(Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16,
                                           Dtype::kBFloat16),
                         [](const auto& info) { return std::string(name_of(info.param)); });

TEST(NpyReader, Uint16WithoutDtypeExplainsDtypeBfloat16) {
  const std::string path = temp_path(".npy");
  write_npy(path, Dtype::kBFloat16, 1, 2, {0x3f80, 0x4000});
  testing_util::expect_file_error([&] { read_table(path, {}); }, "--dtype bfloat16");
}

TEST(NpyReader, Uint16AndInt16ReadAsFloat16OrBfloat16OnRequest) {
  for (const char* descr : {"<u2", "<i2"}) {
    const std::string file = npy_file(
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (1, 2), }",
        le({0x3c00, 0x3f80}, 2));
    const LoadedTable h = read_bytes(file, ".npy", {.dtype = Dtype::kFloat16});
    EXPECT_EQ(h.values, (std::vector<double>{1.0, 1.875})) << descr;
    const LoadedTable b = read_bytes(file, ".npy", {.dtype = Dtype::kBFloat16});
    EXPECT_EQ(b.values, (std::vector<double>{0.0078125, 1.0})) << descr;
    expect_bad_file(file, ".npy", "cannot read", {.dtype = Dtype::kFloat32});
  }
}

TEST(NpyReader, VoidOfTwoBytesIsBfloat16AsMlDtypesSavesIt) {
  for (const char* descr : {"<V2", "|V2"}) {
    const std::string file = npy_file(
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (1, 2), }",
        le({0x3f80, 0xc000}, 2));
    const LoadedTable t = read_bytes(file, ".npy");
    EXPECT_EQ(t.dtype, Dtype::kBFloat16);
    EXPECT_EQ(t.values, (std::vector<double>{1.0, -2.0})) << descr;
    EXPECT_EQ(read_bytes(file, ".npy", {.dtype = Dtype::kFloat16}).dtype, Dtype::kFloat16);
  }
}

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

// Meta's freqs_cis: complex64 [N, d/2], read as [N, d] real/imaginary pairs.
TEST(NpyReader, ComplexValuesAreReadAsRealImaginaryPairs) {
  const LoadedTable t =
      read_bytes(npy_file("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3)}",
                          std::string(eighths_f4()) + std::string(eighths_f4())),
                 ".npy");
  EXPECT_TRUE(t.complex);
  EXPECT_EQ(t.rows, 2u);
  EXPECT_EQ(t.width, 6u);
}

TEST(NpyReader, Versions2And3HaveFourByteHeaderLengths) {
  for (int major : {2, 3})
    expect_eighths(read_bytes(npy_file(kF4x23, eighths_f4(), major), ".npy"));
}

TEST(NpyReader, BigEndianDataIsByteSwapped) {
  std::string data = eighths_f4();
  for (size_t i = 0; i < data.size(); i += 4) std::reverse(data.begin() + i, data.begin() + i + 4);
  const LoadedTable t = read_bytes(
      npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", data), ".npy");
  expect_eighths(t);
  EXPECT_EQ(t.bits(1), std::bit_cast<uint32_t>(0.125f));  // encodings kept little-endian
  const LoadedTable h =
      read_bytes(npy_file("{'descr': '>f2', 'fortran_order': False, 'shape': (1, 1), }",
                          std::string("\x3c\0", 2)),
                 ".npy");
  EXPECT_EQ(h.values[0], 1.0);
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

TEST(NpyReader, NonFiniteValuesAreKept) {
  const LoadedTable t =
      read_bytes(npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (1, 3), }",
                          le({0x7c00, 0xfc00, 0x7e00}, 2)),
                 ".npy");
  EXPECT_EQ(t.values[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(t.values[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(t.values[2]));
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

// ---- Hostile and malformed files: one FileError with a one-line message each ----

std::string with_dict(const std::string& dict) { return npy_file(dict, eighths_f4()); }

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
