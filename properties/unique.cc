// unique: no two positions give the same row.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "properties/check_util.h"
#include "properties/checks.h"

namespace pev::properties {

Verdict check_unique(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  Verdict v;
  v.property = "unique";
  const size_t width = static_cast<size_t>(table_width(spec));
  std::unordered_map<uint64_t, uint64_t> seen;  // row hash -> first row with it
  uint64_t duplicates = 0, first_duplicate = 0, first_original = 0;
  double nearest = INFINITY;
  uint64_t nearest_at = 0;
  std::vector<double> previous;
  seen.reserve(count);
  internal::for_each_chunk(
      ut, spec, count, [&](uint64_t first, const std::vector<double>& t, uint64_t n) {
        for (uint64_t r = 0; r < n; ++r) {
          const double* row = t.data() + r * width;
          uint64_t h = 1469598103934665603ull;  // FNV-1a over the bit patterns (+0, -0 differ)
          for (size_t c = 0; c < width; ++c) {
            h ^= std::bit_cast<uint64_t>(row[c]);
            h *= 1099511628211ull;
          }
          auto [it, inserted] = seen.emplace(h, first + r);
          if (!inserted) {
            TableSpec at = spec;
            at.start = spec.start + it->second;
            const std::vector<double> earlier = ut.rows(at, 1);
            if (std::memcmp(row, earlier.data(), width * sizeof(double)) == 0 &&
                duplicates++ == 0) {
              first_duplicate = first + r;
              first_original = it->second;
            }
          }
          if (!previous.empty()) {
            double d2 = 0;
            for (size_t c = 0; c < width; ++c)
              d2 += (row[c] - previous[c]) * (row[c] - previous[c]);
            if (std::sqrt(d2) < nearest) {
              nearest = std::sqrt(d2);
              nearest_at = spec.start + first + r;
            }
          }
          previous.assign(row, row + width);
        }
      });
  v.checked = count;
  v.holds = duplicates == 0;
  v.figures["duplicate_rows"] = static_cast<double>(duplicates);
  v.figures["nearest_neighbour_distance"] = nearest;
  v.figures["nearest_neighbour_position"] = static_cast<double>(nearest_at);
  if (!v.holds) {
    v.figures["first_duplicate_position"] = static_cast<double>(spec.start + first_duplicate);
    v.worst.push_back({spec.start + first_duplicate, 0, 0, 0, 0, 0, 0,
                       fmt::format("same row as position {}", spec.start + first_original)});
    v.summary = fmt::format("{} of {} rows repeat an earlier row; the first at position {}",
                            duplicates, count, spec.start + first_duplicate);
  } else {
    v.summary =
        fmt::format("{} rows, all distinct; nearest neighbours {:.3g} apart (at position {})",
                    count, nearest, nearest_at);
  }
  return v;
}

}  // namespace pev::properties
