#include "core/generate.h"

#include <algorithm>
#include <bit>

#include "core/convert.h"
#include "support/parallel.h"

namespace pev::core {

double GeneratedTable::value(uint64_t i) const {
  switch (output) {
    case Dtype::kFloat16:
      return f32_from_f16(halves[i]);
    case Dtype::kBFloat16:
      return f32_from_bf16(halves[i]);
    default:
      return floats[i];
  }
}

uint64_t GeneratedTable::bits(uint64_t i) const {
  if (output == Dtype::kFloat16 || output == Dtype::kBFloat16) return halves[i];
  return std::bit_cast<uint32_t>(floats[i]);
}

GeneratedTable generate(const Implementation& impl, const TableSpec& spec, uint64_t count,
                        int threads) {
  GeneratedTable t;
  t.output = impl.output;
  t.rows = count;
  t.width = table_width(spec);
  const bool narrow = impl.output == Dtype::kFloat16 || impl.output == Dtype::kBFloat16;
  if (narrow)
    t.halves.resize(t.size());
  else
    t.floats.resize(t.size());
  char* base =
      narrow ? reinterpret_cast<char*>(t.halves.data()) : reinterpret_cast<char*>(t.floats.data());
  const size_t row_bytes = static_cast<size_t>(t.width) * (narrow ? 2 : 4);
  constexpr uint64_t kBlockRows = 1024;
  const uint64_t blocks = threads == 1 ? 1 : (count + kBlockRows - 1) / kBlockRows;
  const uint64_t rows_per_block = threads == 1 ? count : kBlockRows;
  parallel_for(blocks, threads, [&](uint64_t b) {
    TableSpec part = spec;
    part.start = spec.start + b * rows_per_block;
    const uint64_t n = std::min(rows_per_block, count - b * rows_per_block);
    impl.fill(impl, part, n, base + b * rows_per_block * row_bytes);
  });
  return t;
}

}  // namespace pev::core
