#include "peverify/tables/npy_writer.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <string>

#include "peverify/encoding/format.h"
#include "peverify/support/atomic_file.h"

namespace pev {

std::string npy_descr(Dtype t) {
  switch (t) {
    case Dtype::kFloat64:
      return "<f8";
    case Dtype::kFloat32:
      return "<f4";
    case Dtype::kFloat16:
      return "<f2";
    case Dtype::kBFloat16:
      return "<u2";
  }
  return "";
}

void write_npy_rows(const std::string& path, Dtype t, uint64_t rows, uint64_t cols,
                    const RowFill& fill, bool complex_pairs) {
  if (complex_pairs && (t != Dtype::kFloat32 || cols % 2 != 0))
    throw std::invalid_argument("complex64 needs float32 values in pairs");
  const std::string descr = complex_pairs ? "<c8" : npy_descr(t);
  const uint64_t shape_cols = complex_pairs ? cols / 2 : cols;
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(shape_cols) + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  const int bytes = traits_of(t).storage_bits / 8;
  write_file_atomically(path, [&](std::ostream& out) {
    out.write("\x93NUMPY\x01\x00", 8);
    const char len[2] = {static_cast<char>(header.size() & 0xff),
                         static_cast<char>(header.size() >> 8)};
    out.write(len, 2);
    out << header;
    std::vector<char> buf;
    std::vector<uint64_t> bits;
    const uint64_t block = std::max<uint64_t>(1, (uint64_t{1} << 20) / cols);
    for (uint64_t first = 0; first < rows; first += block) {
      const uint64_t n = std::min(block, rows - first);
      bits.resize(n * cols);
      fill(first, n, bits.data());
      buf.clear();
      for (const uint64_t b : bits)
        for (int i = 0; i < bytes; ++i) buf.push_back(static_cast<char>((b >> (8 * i)) & 0xff));
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    }
  });
}

void write_npy(const std::string& path, Dtype t, uint64_t rows, uint64_t cols,
               const std::vector<uint64_t>& bits) {
  write_npy_rows(path, t, rows, cols, [&](uint64_t first, uint64_t n, uint64_t* out) {
    std::copy_n(bits.begin() + static_cast<std::ptrdiff_t>(first * cols), n * cols, out);
  });
}

}  // namespace pev
