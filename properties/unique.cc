// unique: no two positions give the same row, unless the output format itself cannot tell them
// apart (the correctly rounded table repeats them too).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>

#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"
#include "peverify/properties/accumulators.h"

namespace pev::properties {

uint64_t row_hash(const double* row, size_t width) {
  // FNV-1a's step on four independent lanes (one lane would wait on each multiply), then a
  // splitmix64 finaliser so that every bit of the hash depends on every lane.
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t h[4] = {1469598103934665603ull, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull,
                   0x94d049bb133111ebull};
  size_t c = 0;
  for (; c + 4 <= width; c += 4)
    for (int l = 0; l < 4; ++l) h[l] = (h[l] ^ std::bit_cast<uint64_t>(row[c + l])) * kPrime;
  for (; c < width; ++c) h[0] = (h[0] ^ std::bit_cast<uint64_t>(row[c])) * kPrime;
  uint64_t x = ((h[0] * kPrime + h[1]) * kPrime + h[2]) * kPrime + h[3] + width;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void UniqueCheck::Part::merge(Part&& o) {
  if (hashes.empty())
    hashes = std::move(o.hashes);
  else
    hashes.insert(hashes.end(), o.hashes.begin(), o.hashes.end());
  if (o.nearest < nearest) {
    nearest = o.nearest;
    nearest_at = o.nearest_at;
  }
}

void UniqueCheck::Result::merge(const Result& o) {
  duplicates += o.duplicates;
  format_limited += o.format_limited;
  if (o.first_duplicate < first_duplicate) {
    first_duplicate = o.first_duplicate;
    first_original = o.first_original;
  }
  if (o.first_limited < first_limited) {
    first_limited = o.first_limited;
    first_limited_original = o.first_limited_original;
  }
}

UniqueCheck::UniqueCheck(const UnderTest& ut, const TableSpec& spec, uint64_t count,
                         uint64_t partitions, uint64_t partition, const PositionMap* map)
    : ut_(ut),
      spec_(spec),
      count_(count),
      partitions_(partitions),
      partition_(partition),
      map_(map) {}

std::string UniqueCheck::name_of(uint64_t index) const {
  return map_ ? map_->name(index) : fmt::format("position {}", spec_.start + index);
}

uint64_t UniqueCheck::partitions_for(uint64_t rows, uint64_t max_rows) {
  return std::max<uint64_t>(1, (rows + max_rows - 1) / max_rows);
}

void UniqueCheck::add(Part& p, uint64_t first, uint64_t n, const double* rows,
                      const double* previous) const {
  const size_t width = static_cast<size_t>(table_width(spec_));
  for (uint64_t r = 0; r < n; ++r) {
    const double* row = rows + r * width;
    // A repeat of the previous row's positions should repeat its values (the oracle judges that):
    // neither a second row to hash nor a neighbour at distance 0.
    if (map_ && map_->repeats_previous(first + r)) continue;
    const uint64_t h = row_hash(row, width);
    if (h % partitions_ == partition_) p.hashes.emplace_back(h, first + r);
    const double* before = r > 0 ? row - width : previous;
    if (!before) continue;
    // Four partial sums: the compiler keeps the order of one, and this runs on every element.
    double d2[4] = {0, 0, 0, 0};
    size_t c = 0;
    for (; c + 4 <= width; c += 4)
      for (int l = 0; l < 4; ++l) {
        const double d = row[c + l] - before[c + l];
        d2[l] += d * d;
      }
    for (; c < width; ++c) d2[0] += (row[c] - before[c]) * (row[c] - before[c]);
    const double distance = std::sqrt((d2[0] + d2[1]) + (d2[2] + d2[3]));
    if (distance < p.nearest) {
      p.nearest = distance;
      p.nearest_at = first + r;
    }
  }
}

UniqueCheck::Result UniqueCheck::resolve(Part& p) const {
  Result result;
  std::sort(p.hashes.begin(), p.hashes.end());
  const size_t width = static_cast<size_t>(table_width(spec_));
  const auto row_at = [&](uint64_t index) {
    TableSpec at = spec_;
    at.start = spec_.start + index;
    return ut_.rows(at, 1);
  };
  // The correctly rounded rows, to ask whether the format forces a repetition.
  const auto engine = oracle::make_fast_engine(spec_, ut_.output());
  std::map<uint64_t, std::vector<double>> rounded_rows;
  const auto rounded_at = [&](uint64_t index) -> const std::vector<double>& {
    auto [it, fresh] = rounded_rows.try_emplace(index);
    if (fresh && map_) {
      it->second = map_->rounded_row(index, ut_.output());
    } else if (fresh) {
      TableSpec at = spec_;
      at.start = spec_.start + index;
      it->second = oracle::compute_table(*engine, at, 1, 1).rounded;
    }
    return it->second;
  };
  const auto same = [&](const std::vector<double>& a, const std::vector<double>& b) {
    return std::memcmp(a.data(), b.data(), width * sizeof(double)) == 0;
  };
  for (size_t i = 0; i < p.hashes.size();) {
    size_t end = i + 1;
    while (end < p.hashes.size() && p.hashes[end].first == p.hashes[i].first) ++end;
    // Rows of one hash, earliest first: each is compared with the distinct rows before it.
    std::vector<std::pair<uint64_t, std::vector<double>>> distinct;
    for (size_t j = i; j < end && end - i > 1; ++j) {
      const uint64_t index = p.hashes[j].second;
      std::vector<double> row = row_at(index);
      auto it = std::find_if(distinct.begin(), distinct.end(),
                             [&](const auto& d) { return same(d.second, row); });
      if (it == distinct.end()) {
        distinct.emplace_back(index, std::move(row));
        continue;
      }
      const uint64_t pos = index, original = it->first;  // indices: named in the verdict
      if (same(rounded_at(it->first), rounded_at(index))) {
        ++result.format_limited;
        if (pos < result.first_limited) {
          result.first_limited = pos;
          result.first_limited_original = original;
        }
      } else {
        ++result.duplicates;
        if (pos < result.first_duplicate) {
          result.first_duplicate = pos;
          result.first_original = original;
        }
      }
      rounded_rows.erase(index);
    }
    i = end;
  }
  return result;
}

PropertyVerdict UniqueCheck::verdict(const Result& r, const Part& distances) const {
  PropertyVerdict v;
  v.property = "unique";
  v.checked = count_;
  v.holds = r.duplicates == 0;
  v.figures["duplicate_rows"] = static_cast<double>(r.duplicates);
  v.figures["format_limited_rows"] = static_cast<double>(r.format_limited);
  v.figures["nearest_neighbour_distance"] = distances.nearest;
  const auto position = [&](uint64_t index) {
    return static_cast<double>(map_ ? map_->position(index) : spec_.start + index);
  };
  v.figures["nearest_neighbour_position"] = position(distances.nearest_at);
  if (r.format_limited) {
    v.figures["first_format_limited_position"] = position(r.first_limited);
    v.notes.push_back(fmt::format(
        "{} rows repeat an earlier row as the correctly rounded {} table does too (the first at "
        "{}, equal to {}): a limit of the format, not of the implementation",
        r.format_limited, pev::name_of(ut_.output()), name_of(r.first_limited),
        name_of(r.first_limited_original)));
  }
  if (!v.holds) {
    v.figures["first_duplicate_position"] = position(r.first_duplicate);
    Finding f{spec_.start + r.first_duplicate,
              0,
              0,
              0,
              0,
              0,
              0,
              fmt::format("same row as {}", name_of(r.first_original))};
    v.worst.push_back(map_ ? map_->located(f) : f);
    v.summary = fmt::format(
        "{} of {} rows repeat an earlier row where the correctly rounded table does not; the "
        "first at {}",
        r.duplicates, count_, name_of(r.first_duplicate));
  } else {
    v.summary =
        fmt::format("{} rows, {}; nearest neighbours {:.3g} apart (at {})", count_,
                    r.format_limited ? "distinct wherever the format allows" : "all distinct",
                    distances.nearest, name_of(distances.nearest_at));
  }
  return v;
}

PropertyVerdict check_unique(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  const UniqueCheck check(ut, spec, count);
  UniqueCheck::Part part;
  std::vector<double> previous;
  internal::for_each_chunk(
      ut, spec, count, [&](uint64_t first, const std::vector<double>& t, uint64_t n) {
        check.add(part, first, n, t.data(), previous.empty() ? nullptr : previous.data());
        const size_t width = static_cast<size_t>(table_width(spec));
        previous.assign(t.end() - static_cast<std::ptrdiff_t>(width), t.end());
      });
  return check.verdict(check.resolve(part), part);
}

}  // namespace pev::properties
