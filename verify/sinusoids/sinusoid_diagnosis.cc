#include "peverify/verify/sinusoids/sinusoid_diagnosis.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "peverify/verify/diagnosis.h"
#include "peverify/verify/sinusoids/sinusoid_judge.h"

namespace pev::verify::sinusoids {
namespace {

constexpr uint64_t kSpread = 48;  // rows sampled evenly, beside the rows of the worst elements

std::vector<uint64_t> sampled_rows(uint64_t rows, const SinusoidVerdict& failed) {
  std::set<uint64_t> s;
  for (uint64_t i = 0; i < std::min(rows, kSpread); ++i)
    s.insert(i * rows / std::min(rows, kSpread));
  for (const SinusoidProperty& p : failed.properties)
    for (const SinusoidFinding& f : p.worst) s.insert(f.row);
  return {s.begin(), s.end()};
}

// The sampled elements outside the claim under a declaration; nullopt where its width is not the
// table's (it cannot describe this data).
std::optional<uint64_t> failing(const SinusoidInput& in, const SinusoidDeclaration& d,
                                const std::vector<uint64_t>& rows, const Claim& claim,
                                int threads) {
  if (static_cast<uint64_t>(d.table.width()) != in.width) return std::nullopt;
  const ExactValues exact(d.table, d.positions, in.dtype, threads, rows);
  uint64_t n = 0;
  for (const uint64_t r : rows)
    for (int c = 0; c < d.table.width(); ++c)
      n += !judge(in.values[r * in.width + static_cast<uint64_t>(c)], exact.at(r, c), claim,
                  in.dtype)
                .ok;
  return n;
}

}  // namespace

Diagnosis diagnose(const SinusoidInput& in, const SinusoidDeclaration& declared,
                   const std::vector<SinusoidAlternative>& alternatives, const Claim& claim,
                   const SinusoidVerdict& failed, int threads) {
  const std::vector<uint64_t> rows = sampled_rows(in.rows, failed);
  const std::string sampled = fmt::format("in {} sampled rows", rows.size());
  const auto isolated = [&](std::string why) {
    Diagnosis d;
    d.cause = diagnosis::documented("isolated");
    std::vector<std::string> places;
    for (const SinusoidProperty& p : failed.properties)
      for (const SinusoidFinding& f : p.worst)
        if (const std::string at = fmt::format("row {} column {}", f.row, f.column);
            !p.holds && places.size() < 3 &&
            std::find(places.begin(), places.end(), at) == places.end())
          places.push_back(at);
    d.detail = fmt::format("{}; failing elements at {}", why, fmt::join(places, ", "));
    return d;
  };
  try {
    const std::optional<uint64_t> as_declared = failing(in, declared, rows, claim, threads);
    if (!as_declared || *as_declared == 0)
      return isolated(
          "the sampled rows pass as declared (the failures are elsewhere or are "
          "properties of the whole table)");
    std::vector<diagnosis::Alternative> named;
    for (const SinusoidAlternative& a : alternatives)
      named.push_back({a.cause, a.detail, a.declaration.flags});
    return diagnosis::choose(
        named, *as_declared,
        [&](size_t i, uint64_t) {  // the sinusoid families judge every sampled row
          return failing(in, alternatives[i].declaration, rows, claim, threads);
        },
        sampled, isolated);
  } catch (const std::exception& e) {
    Diagnosis d;
    d.cause = "none";
    d.detail = e.what();
    return d;
  }
}

}  // namespace pev::verify::sinusoids
