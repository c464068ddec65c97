// The table diagnosis's sample: rows read as the pass reads them, and as the read-back takes them.
#include "peverify/verify/diagnosis_samples.h"

#include <algorithm>

#include "peverify/verify/diagnosis.h"

namespace pev::verify::diagnosis {
namespace {

// The columns holding each pair's cos and sin (-1: none), the first of each.
struct PairColumns {
  std::vector<int> cos, sin;
};
PairColumns pair_columns(const TableSpec& s) {
  const int half = s.d_model / 2, width = table_width(s);
  PairColumns p{std::vector<int>(half, -1), std::vector<int>(half, -1)};
  for (int col = 0; col < width; ++col) {
    const Column c = pair_of_column(s.layout, half, col);
    int& at = c.is_sin ? p.sin[c.pair] : p.cos[c.pair];
    if (at < 0) at = col;
  }
  return p;
}

// Where each pair's cos and sin are read from: this table's columns, or the companion's.
struct PairSources {
  PairColumns own, other;  // other: the companion's (all -1 without one)
  bool has_cos = true, has_sin = true;
};
PairSources pair_sources(const VerifyOptions& declared) {
  const TableSpec& s = declared.spec;
  PairSources p{pair_columns(s), {}};
  const int half = s.d_model / 2;
  p.other = PairColumns{std::vector<int>(half, -1), std::vector<int>(half, -1)};
  if (declared.companion) {
    TableSpec t = s;
    t.layout = declared.companion->layout;
    p.other = pair_columns(t);
  }
  for (int j = 0; j < half; ++j) {
    p.has_cos = p.has_cos && (p.own.cos[j] >= 0 || p.other.cos[j] >= 0);
    p.has_sin = p.has_sin && (p.own.sin[j] >= 0 || p.other.sin[j] >= 0);
  }
  return p;
}

// One stored row as the read-back takes it: each pair's A cos and A sin, from this table's row or
// the companion's row of the same file row.
readback::Row observed_row(const double* row, uint64_t declared, uint64_t file_row,
                           const PairSources& p, const VerifyOptions& o, double error) {
  readback::Row r{declared, file_row, {}, {}, error};
  std::vector<double> other;
  if (o.companion) {
    other.resize(static_cast<size_t>(layout_width(o.companion->layout, o.spec.d_model)));
    o.companion->read(file_row, other.data());
  }
  const auto value = [&](int own, int theirs) { return own >= 0 ? row[own] : other[theirs]; };
  for (size_t j = 0; j < p.own.cos.size(); ++j) {
    r.c.push_back(value(p.own.cos[j], p.other.cos[j]));
    if (p.has_sin) r.s.push_back(value(p.own.sin[j], p.other.sin[j]));
  }
  return r;
}

}  // namespace

std::vector<SampleBlock> sample_rows(const properties::RowReader& read, uint64_t rows, int width,
                                     const properties::PositionMap* map,
                                     const VerifyResult& failed) {
  std::vector<uint64_t> index_of_row;  // at position ids: a file row's index in read's order
  if (map) {
    index_of_row.resize(rows);
    for (uint64_t i = 0; i < rows; ++i) index_of_row[map->row(i)] = i;
  }
  // The worst elements' rows in read's order: from the file row a table at ids names, else
  // position - start.
  const auto row_of = [&](const properties::Finding& f) -> std::optional<uint64_t> {
    if (f.row)
      return *f.row < index_of_row.size() ? std::optional(index_of_row[*f.row]) : std::nullopt;
    if (!map && f.pos >= failed.spec.start) return f.pos - failed.spec.start;
    return std::nullopt;
  };
  std::vector<uint64_t> worst;
  for (const properties::PropertyVerdict& v : failed.verdicts)
    for (const properties::Finding& f : v.worst)
      if (const auto row = row_of(f)) worst.push_back(*row);
  std::vector<SampleBlock> blocks;
  for (const uint64_t first : diagnosis::sampled_blocks(rows, worst)) {
    SampleBlock b{first, {}, {}};
    const uint64_t n = std::min(kBlockRows, rows - first);
    for (uint64_t i = first; i < first + n; ++i) b.file_rows.push_back(map ? map->row(i) : i);
    b.got.resize(n * static_cast<uint64_t>(width));
    read(first, n, b.got.data());
    blocks.push_back(std::move(b));
  }
  return blocks;
}

readback::Observations observe(const std::vector<SampleBlock>& sample,
                               const VerifyOptions& declared, Dtype dtype) {
  const TableSpec& s = declared.spec;
  readback::Observations o;
  const PairSources sources = pair_sources(declared);
  if ((declared.positions && declared.positions->stream_count() != 1) || !sources.has_cos) return o;
  for (int j = 0; j < s.d_model / 2; ++j) o.frequencies.push_back(frequency(s, j));
  o.amplitude = attention_factor(s);
  const double error = ulp_of(o.amplitude, dtype);
  const int width = table_width(s);
  for (const SampleBlock& b : sample)
    for (uint64_t r = 0; r < b.got.size() / static_cast<uint64_t>(width); ++r) {
      const uint64_t pos = declared.positions ? declared.positions->streams[0][b.file_rows[r]]
                                              : s.start + b.first + r;
      o.rows.push_back(
          observed_row(b.got.data() + r * width, pos, b.file_rows[r], sources, declared, error));
    }
  return o;
}

std::function<std::optional<bool>(uint64_t)> unrotated_probe(const properties::RowReader& read,
                                                             uint64_t rows,
                                                             const VerifyOptions& declared,
                                                             const readback::Observations& o) {
  if (declared.positions || o.rows.empty()) return {};
  return [&read, rows, &declared, &o](uint64_t position) -> std::optional<bool> {
    const TableSpec& s = declared.spec;
    if (position < s.start || position - s.start >= rows) return std::nullopt;
    std::vector<double> row(static_cast<size_t>(table_width(s)));
    read(position - s.start, 1, row.data());
    const readback::Row r = observed_row(row.data(), position, position - s.start,
                                         pair_sources(declared), declared, o.rows[0].error);
    return readback::read_row(r, o).state == readback::RowState::kIdentity;
  };
}
}  // namespace pev::verify::diagnosis
