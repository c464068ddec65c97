// The positions the read-back proposes (docs/architecture.md §8.2): where the rows' angles put
// them elsewhere than declared, the positions that reproduce them, named by the pattern the
// difference is (one position, a bound past which rows are unrotated, a period, restarts, a
// coarser grid) and judged like every other alternative. The parameters (the position, the bound,
// the period, the restarts) are read from the data; none comes from a list of known bugs.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "peverify/encoding/format.h"
#include "peverify/encoding/rope.h"
#include "peverify/verify/diagnosis.h"

namespace pev::verify::diagnosis {
namespace {

using Alternatives = std::vector<SpecAlternative>;
using readback::RowState;

SpecAlternative alternative(const DeclaredSpec& d, std::string cause, std::string detail) {
  return SpecAlternative{{std::move(cause), std::move(detail), {}}, d.spec, {}};
}

// The declared positions with each id replaced by `f(index, id)`; nullopt where f refuses one.
std::optional<RowPositions> mapped(
    const DeclaredSpec& d, const std::function<std::optional<uint64_t>(uint64_t, uint64_t)>& f) {
  RowPositions out = *d.declared_positions;
  std::vector<uint64_t>& ids = out.streams[0];
  for (uint64_t i = 0; i < ids.size(); ++i) {
    const std::optional<uint64_t> id = f(i, ids[i]);
    if (!id || *id > kMaxPosition) return std::nullopt;
    ids[i] = *id;
  }
  return out;
}

// The read-back rows that placed themselves, with their declared positions.
struct Placed {
  double read, declared;
  uint64_t index;
  bool identity;
};
std::vector<Placed> placed_rows(const DeclaredSpec& d) {
  std::vector<Placed> out;
  for (size_t i = 0; i < d.observed->rows.size(); ++i) {
    const readback::RowReading& r = d.read_back->rows[i];
    if (!r.position) continue;
    out.push_back({*r.position, static_cast<double>(d.observed->rows[i].declared),
                   d.observed->rows[i].index, r.state == RowState::kIdentity});
  }
  return out;
}

// Whether `read` (in [0, period)) is `position` modulo the period, to within half a position.
bool agrees(const DeclaredSpec& d, double read, double position) {
  const double period = d.read_back->period;
  double gap = std::fmod(read - position, period);
  if (gap > period / 2) gap -= period;
  if (gap < -period / 2) gap += period;
  return std::fabs(gap) < 0.5;
}

size_t count_agreeing(const DeclaredSpec& d, const std::vector<Placed>& rows,
                      const std::function<double(const Placed&)>& h) {
  return static_cast<size_t>(std::count_if(
      rows.begin(), rows.end(), [&](const Placed& p) { return agrees(d, p.read, h(p)); }));
}

bool usable(const DeclaredSpec& d) {
  return d.observed && d.read_back && d.declared_positions &&
         d.declared_positions->stream_count() == 1;
}

void add(const DeclaredSpec& d, std::string cause, std::string detail,
         std::optional<RowPositions> ids, Alternatives& out) {
  if (!ids) return;
  SpecAlternative a = alternative(d, std::move(cause), std::move(detail));
  a.ids = std::move(ids);
  out.push_back(std::move(a));
}

// one-position: every row at one position (a decode that passes position 0 for every token,
// mlx-vlm#1983).
void one_position(const DeclaredSpec& d, const std::vector<Placed>& rows, Alternatives& out) {
  std::vector<double> read;
  for (const Placed& p : rows) read.push_back(p.read);
  std::nth_element(read.begin(), read.begin() + read.size() / 2, read.end());
  const double c = std::nearbyint(read[read.size() / 2]);
  if (10 * count_agreeing(d, rows, [&](const Placed&) { return c; }) < 9 * rows.size()) return;
  add(d, "one-position",
      fmt::format("every {} is at position {:.0f} ({} of {} sampled {} read back there), not at "
                  "the declared ones: as a decode that passes one position for every token "
                  "(mlx-vlm#1983); no declaration states it",
                  d.rows.substr(0, d.rows.size() - 1), c,
                  count_agreeing(d, rows, [&](const Placed&) { return c; }), rows.size(), d.rows),
      mapped(d, [&](uint64_t, uint64_t) { return std::optional<uint64_t>(c); }), out);
}

// unrotated: the rows from a bound on hold the identity (cos 1, sin 0: a cache read past its
// end, as flash-attention's Triton rotary past seqlen_ro). The bound is found by reading rows
// between the last rotated and the first unrotated sampled one, where the caller can.
void unrotated_from_bound(const DeclaredSpec& d, const std::vector<Placed>& rows,
                          Alternatives& out) {
  double first_identity = INFINITY, last_rotated = -1;
  for (const Placed& p : rows) {
    if (p.identity && p.declared > 0) first_identity = std::min(first_identity, p.declared);
    if (!p.identity && agrees(d, p.read, p.declared))
      last_rotated = std::max(last_rotated, p.declared);
  }
  if (!std::isfinite(first_identity) || last_rotated >= first_identity) return;
  uint64_t lo = static_cast<uint64_t>(last_rotated + 1), hi = static_cast<uint64_t>(first_identity);
  bool exact = false;
  if (d.unrotated_at) {  // the first unrotated position in (last_rotated, first_identity]
    exact = true;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      const std::optional<bool> unrotated = d.unrotated_at(mid);
      if (!unrotated) {
        exact = false;
        break;
      }
      if (*unrotated)
        hi = mid;
      else
        lo = mid + 1;
    }
  }
  const uint64_t bound = exact ? hi : static_cast<uint64_t>(first_identity);
  const auto h = [&](const Placed& p) { return p.declared >= double(bound) ? 0.0 : p.declared; };
  if (10 * count_agreeing(d, rows, h) < 9 * rows.size()) return;
  add(d, "unrotated",
      fmt::format("the {} from position {} on are not rotated (cos 1, sin 0: the identity){}, "
                  "those below are: a cos/sin cache {} long read past its end (as "
                  "flash-attention's rotary past seqlen_ro); no declaration states it",
                  d.rows, bound,
                  exact ? "" : fmt::format(" (the bound lies in {} .. {})", lo, bound), bound),
      mapped(d,
             [&](uint64_t, uint64_t id) { return std::optional<uint64_t>(id >= bound ? 0 : id); }),
      out);
}

// positions-modulo: every position taken modulo a length (a cache indexed with wrap-around).
void modulo_length(const DeclaredSpec& d, const std::vector<Placed>& rows, Alternatives& out) {
  uint64_t g = 0;
  for (const Placed& p : rows) {
    const double gap = p.declared - std::nearbyint(p.read);
    if (std::fabs(gap) >= 0.5 && gap > 0) g = std::gcd(g, static_cast<uint64_t>(gap));
  }
  if (g < 2) return;
  const auto h = [&](const Placed& p) { return std::fmod(p.declared, double(g)); };
  if (10 * count_agreeing(d, rows, h) < 9 * rows.size()) return;
  add(d, "positions-modulo",
      fmt::format("the {} are at their positions modulo {} (a table or cache {} long indexed "
                  "with wrap-around); no declaration states it",
                  d.rows, g, g),
      mapped(d, [&](uint64_t, uint64_t id) { return std::optional<uint64_t>(id % g); }), out);
}

// restarted-positions: the data's positions restart (packed documents) where the declared ones
// run on. A restart is where a row's read-back position falls below the one before it (in
// declared order); each document's rows sit at the declared position minus where it starts.
void restarts(const DeclaredSpec& d, const std::vector<Placed>& rows, Alternatives& out) {
  std::vector<std::pair<double, double>> at;  // (declared, read back)
  for (const Placed& p : rows) at.emplace_back(p.declared, std::nearbyint(p.read));
  std::sort(at.begin(), at.end());
  std::vector<uint64_t> starts;  // the declared position each document starts at
  size_t behind = 0;
  for (size_t i = 0; i < at.size(); ++i) {
    behind += !agrees(d, at[i].second, at[i].first);
    if (i > 0 && at[i].second < at[i - 1].second && at[i].first >= at[i].second)
      starts.push_back(static_cast<uint64_t>(at[i].first - at[i].second));
  }
  if (behind < 3 || starts.empty()) return;
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  const auto position_of = [&](uint64_t, uint64_t declared) -> std::optional<uint64_t> {
    const auto it = std::upper_bound(starts.begin(), starts.end(), declared);
    return it == starts.begin() ? declared : declared - *(it - 1);
  };
  const auto h = [&](const Placed& p) { return double(*position_of(0, uint64_t(p.declared))); };
  if (10 * count_agreeing(d, rows, h) < 9 * rows.size()) return;
  std::vector<std::string> shown;
  for (size_t i = 0; i < starts.size() && i < 4; ++i) shown.push_back(std::to_string(starts[i]));
  add(d, "restarted-positions",
      fmt::format("the data's positions restart from 0 where the declared ones are {}{} "
                  "(packed documents, each from its own 0) and run on as declared between (the "
                  "reverse of OLMo-core#591); declare each document's positions with --positions",
                  fmt::join(shown, ", "), starts.size() > 4 ? ", ..." : ""),
      mapped(d, position_of), out);
}

// global-positions: positions running on through the rows where restarting ones were declared
// (packed documents rotated at their global positions, OLMo-core#591, torchtitan#2559).
void global_positions(const DeclaredSpec& d, const std::vector<Placed>& rows, Alternatives& out) {
  if (!d.global_position) return;
  const std::vector<uint64_t>& ids = d.declared_positions->streams[0];
  bool restarts = false;
  for (size_t i = 1; i < ids.size() && !restarts; ++i) restarts = ids[i] < ids[i - 1];
  if (!restarts) return;
  const auto h = [&](const Placed& p) { return double(d.global_position(p.index)); };
  if (10 * count_agreeing(d, rows, h) < 9 * rows.size()) return;
  add(d, "global-positions",
      fmt::format("the {} are at their global positions (the row's place in the sequence), not "
                  "at the restarting ids of {} (as OLMo-core#591, torchtitan#2559: packed "
                  "documents rotated as one); no declaration states it",
                  d.rows, d.ids_name),
      mapped(d,
             [&](uint64_t i, uint64_t) { return std::optional<uint64_t>(d.global_position(i)); }),
      out);
}

// 2^bits significant bits, unbounded exponent: TF32 is 11.
double rounded_to_bits(double x, int bits) {
  if (x == 0 || !std::isfinite(x)) return x;
  const int e = std::ilogb(x) - (bits - 1);
  return std::ldexp(std::nearbyint(std::ldexp(x, -e)), e);
}

// The same for a position id, in integers (every row's id is rounded: 131072 of them per grid),
// ties to even as the formats round.
uint64_t id_rounded_to_bits(uint64_t id, int bits) {
  const int shift = std::bit_width(id) - bits;
  if (shift <= 0) return id;
  const uint64_t kept = id >> shift, rest = id & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  return (kept + (rest > half || (rest == half && (kept & 1)))) << shift;
}

// position-grid: the positions (and, as a matmul of positions and frequencies takes them, the
// frequencies too) rounded to a narrower format: bfloat16, float16 or TF32 (alike below 65520).
void coarser_grid(const DeclaredSpec& d, Alternatives& out) {
  const uint64_t last = d.positions_end > 0 ? d.positions_end - 1 : 0;
  struct Grid {
    const char* name;
    int bits;
    uint64_t from;  // the first integer the format does not hold
  };
  const bool past_float16 = last >= 65520;
  for (const Grid g :
       {Grid{"bfloat16", 8, 257},
        Grid{past_float16 ? "TF32" : "float16 or TF32 (alike below 65520)", 11, 2049}}) {
    if (last < g.from || !d.spec.rope.mrope_section.empty()) continue;
    std::optional<RowPositions> ids = mapped(d, [&](uint64_t, uint64_t id) {
      return std::optional<uint64_t>(id_rounded_to_bits(id, g.bits));
    });
    add(d, "position-grid",
        fmt::format("the positions were rounded to {} before the angles (positions above {} "
                    "collide); keep them in float32 or an integer type",
                    g.name, g.from - 1),
        ids, out);
    if (!ids) continue;
    SpecAlternative both = alternative(
        d, "position-grid",
        fmt::format("the positions and the frequencies were both rounded to {} before their "
                    "product: the angles' matmul ran in {}{}",
                    g.name, g.name,
                    g.bits == 11 ? " (TF32 matmuls: torch.backends.cuda.matmul.allow_tf32)" : ""));
    both.spec = with_frequencies(d.spec, d.positions_end, [&](int k) {
      return rounded_to_bits(frequency(d.spec, k), g.bits);
    });
    both.ids = std::move(ids);
    out.push_back(std::move(both));
  }
}

}  // namespace

void read_back_positions(const DeclaredSpec& d, std::vector<SpecAlternative>& out) {
  if (!usable(d)) return;
  const std::vector<Placed> rows = placed_rows(d);
  if (rows.size() >= 3) {
    size_t misplaced = 0;
    for (const Placed& p : rows) misplaced += !agrees(d, p.read, p.declared);
    if (misplaced >= 3) {
      one_position(d, rows, out);
      unrotated_from_bound(d, rows, out);
      modulo_length(d, rows, out);
      restarts(d, rows, out);
    }
    global_positions(d, rows, out);
  }
  coarser_grid(d, out);
}

}  // namespace pev::verify::diagnosis
