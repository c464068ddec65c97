#include "peverify/core/generate.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "peverify/core/convert.h"
#include "peverify/core/row_writer.h"
#include "peverify/support/parallel.h"

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

std::vector<double> GeneratedTable::values() const {
  std::vector<double> v(size());
  switch (output) {
    case Dtype::kFloat16:
      for (size_t i = 0; i < v.size(); ++i) v[i] = f32_from_f16(halves[i]);
      break;
    case Dtype::kBFloat16:
      for (size_t i = 0; i < v.size(); ++i) v[i] = f32_from_bf16(halves[i]);
      break;
    default:
      for (size_t i = 0; i < v.size(); ++i) v[i] = floats[i];
  }
  return v;
}

uint64_t GeneratedTable::bits(uint64_t i) const {
  if (output == Dtype::kFloat16 || output == Dtype::kBFloat16) return halves[i];
  return std::bit_cast<uint32_t>(floats[i]);
}

void fill_rows(const Implementation& impl, const TableSpec& spec, uint64_t count, void* out,
               int threads) {
  const size_t row_bytes = static_cast<size_t>(table_width(spec)) * element_size(impl.output);
  const uint64_t parts = std::min<uint64_t>(static_cast<uint64_t>(resolve_threads(threads)),
                                            std::max<uint64_t>(1, count / 64));
  const uint64_t rows_per_part = (count + parts - 1) / parts;
  parallel_for(parts, static_cast<int>(parts), [&](uint64_t p) {
    TableSpec part = spec;
    part.start = spec.start + p * rows_per_part;
    if (p * rows_per_part >= count) return;
    const uint64_t n = std::min(rows_per_part, count - p * rows_per_part);
    impl.fill(impl, part, n, static_cast<char*>(out) + p * rows_per_part * row_bytes);
  });
}

GeneratedTable generate(const Implementation& impl, const TableSpec& spec, uint64_t count,
                        int threads) {
  GeneratedTable t;
  t.output = impl.output;
  t.rows = count;
  t.width = table_width(spec);
  if (impl.output == Dtype::kFloat16 || impl.output == Dtype::kBFloat16) {
    t.halves.resize(t.size());
    fill_rows(impl, spec, count, t.halves.data(), threads);
  } else {
    t.floats.resize(t.size());
    fill_rows(impl, spec, count, t.floats.data(), threads);
  }
  return t;
}

GeneratedTable generate_at(const Implementation& impl, const TableSpec& spec,
                           const RowPositions& ids, int threads) {
  GeneratedTable t;
  t.output = impl.output;
  t.rows = ids.rows();
  t.width = table_width(spec);
  const size_t esize = element_size(impl.output), width = static_cast<size_t>(t.width);
  std::vector<unsigned char> out(t.size() * esize);
  for (int s = 0; s < ids.stream_count(); ++s) {
    std::vector<size_t> columns;  // the columns whose pair takes stream s
    for (int c = 0; c < t.width; ++c)
      if (ids.stream_count() == 1 || mrope_stream(spec.rope, column_at(spec, c).pair) == s)
        columns.push_back(static_cast<size_t>(c));
    const std::vector<uint64_t>& stream = ids.streams[static_cast<size_t>(s)];
    const IdRuns ids_of_stream = id_runs(stream);
    const std::vector<uint64_t>& distinct = ids_of_stream.distinct;
    const auto& runs = ids_of_stream.runs;
    std::vector<unsigned char> values(distinct.size() * width * esize);
    parallel_for(runs.size(), threads, [&](uint64_t k) {
      TableSpec run = spec;
      run.start = distinct[runs[k].first];
      impl.fill(impl, run, runs[k].second - runs[k].first,
                values.data() + runs[k].first * width * esize);
    });
    for (uint64_t r = 0; r < t.rows; ++r) {
      const size_t at = ids_of_stream.index_of(stream[r]);
      for (const size_t c : columns)
        std::copy_n(values.data() + (at * width + c) * esize, esize,
                    out.data() + (r * width + c) * esize);
    }
  }
  if (esize == 2) {
    t.halves.resize(t.size());
    std::memcpy(t.halves.data(), out.data(), out.size());
  } else {
    t.floats.resize(t.size());
    std::memcpy(t.floats.data(), out.data(), out.size());
  }
  return t;
}

}  // namespace pev::core
