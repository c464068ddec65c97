// The recommendation rule (docs/features.md §14): for each output type, context length and
// accuracy target, among the entries whose horizon reaches the context and that break no property
// before it, the most accurate of those the timings cannot tell from the fastest.
#include "peverify/reports/study/recommend.h"

#include <fmt/format.h>

#include <algorithm>

#include "peverify/encoding/format.h"
#include "peverify/encoding/targets.h"
#include "peverify/reports/study/snippets.h"

namespace pev::reports::study {

std::optional<uint64_t> first_position(const properties::PropertyVerdict& v) {
  if (v.holds) return std::nullopt;
  if (const auto it = v.figures.find("first_failure"); it != v.figures.end() && it->second >= 0)
    return static_cast<uint64_t>(it->second);
  std::optional<uint64_t> first;
  for (const measure::Finding& f : v.worst) first = std::min(first.value_or(f.pos), f.pos);
  return first;
}

Candidate candidate_of(const EntryResult& e) {
  Candidate c;
  c.name = e.name;
  c.output = e.output;
  c.available = e.available;
  c.values_per_s = e.values_per_s;
  c.roofline_ratio = e.roofline_ratio;
  c.plain = {e.max_abs, e.horizons};
  for (const ModelResult& m : e.models)
    c.models[m.model] = {m.figures.max_abs_or_inf(), m.horizons};
  for (const properties::PropertyVerdict& v : e.verdicts)
    if (!v.holds) c.failures.emplace_back(v.property, first_position(v));
  return c;
}

std::vector<Candidate> candidates_of(const std::vector<EntryResult>& entries) {
  std::vector<Candidate> out;
  out.reserve(entries.size());
  for (const EntryResult& e : entries) out.push_back(candidate_of(e));
  return out;
}

std::optional<std::string> excluded_by(const Candidate& c, uint64_t context) {
  for (const auto& [property, first] : c.failures)
    if (!first || *first < context) return property;
  return std::nullopt;
}

namespace {

// Whether no table of `dtype` (a report's type name) can meet `target`: the report does not ask
// it of that type (a question only a user's explicit --target asks, answered by pick's reason).
bool beyond(const std::string& dtype, const std::string& target) {
  const std::optional<Dtype> t = parse_dtype(dtype);
  return t && beyond_output_format(*t, target);
}

// Why nothing meets `target` ("1e-4", "faithful") in `dtype` outputs, in words: the output
// rounding when that alone exceeds the target, else that no entry available here meets it.
std::string unmet_reason(const std::string& dtype, const std::string& target) {
  const std::optional<Dtype> t = parse_dtype(dtype);
  if (t && beyond_output_format(*t, target))
    return fmt::format(
        "below what {} can hold: its output rounding alone errs by up to {:.2g}, more than {}",
        dtype, output_rounding_error(*t), target);
  return "no implementation available here meets it";
}

// The build the question is about: the plain encoding (model empty) or the model's cache.
const CandidateAccuracy* accuracy_for(const Candidate& c, const std::string& model) {
  if (model.empty()) return &c.plain;
  const auto it = c.models.find(model);
  return it == c.models.end() ? nullptr : &it->second;
}

struct Qualified {
  const Candidate* candidate;
  const CandidateAccuracy* accuracy;
  uint64_t horizon;
};

// Failures beyond the context, which do not rule the entry out but belong in its evidence.
std::string later_failures(const Candidate& c) {
  std::string out;
  for (const auto& [property, first] : c.failures)
    out += fmt::format("; fails {} from position {}, beyond the context", property, *first);
  return out;
}

Recommendation pick(const std::vector<Candidate>& candidates, const std::string& model,
                    const std::string& dtype, uint64_t context, const std::string& target) {
  Recommendation r{model, dtype, context, target, "", "", std::nullopt};
  std::vector<Qualified> qualified;
  for (const Candidate& c : candidates) {
    if (c.output != dtype || !c.available || !c.values_per_s) continue;
    const CandidateAccuracy* a = accuracy_for(c, model);
    if (!a) continue;
    const auto h = a->horizons.find(target);
    // Positions 0 .. context - 1 must all meet the target and break no property.
    if (h == a->horizons.end() || h->second + 1 < context || excluded_by(c, context)) continue;
    qualified.push_back({&c, a, h->second});
  }
  if (qualified.empty()) {
    r.evidence = unmet_reason(dtype, target);
    return r;
  }
  // Timings decide only beyond their spread: an entry is out when it was slower in every
  // repetition (its max) than another qualifying entry in its slowest one (the largest min).
  // The floor depends on no median, so medians moving within their spread change nothing; the
  // fastest by median always stays in, and every entry kept overlaps its interval.
  double floor = 0;
  for (const Qualified& q : qualified) floor = std::max(floor, q.candidate->values_per_s->min);
  const Qualified* best = nullptr;
  int ties = 0;
  for (const Qualified& q : qualified) {
    if (q.candidate->values_per_s->max < floor) continue;
    ++ties;
    // Among the ties the more accurate wins, then the name, so that the pick is deterministic.
    if (!best || q.accuracy->max_abs < best->accuracy->max_abs ||
        (q.accuracy->max_abs == best->accuracy->max_abs &&
         q.candidate->name < best->candidate->name))
      best = &q;
  }
  const Candidate& c = *best->candidate;
  r.entry = c.name;
  r.evidence = fmt::format(
      "meets {} up to position {} (sampled); {:.3g} values/s ({:.3g}-{:.3g} over the "
      "repetitions), {:.2f} of the store roofline; max abs error {:.3g} {}{}{}",
      target, best->horizon, c.values_per_s->median, c.values_per_s->min, c.values_per_s->max,
      c.roofline_ratio.value_or(0), best->accuracy->max_abs,
      model.empty() ? "over the study" : "in the model's cache",
      ties > 1 ? fmt::format("; the most accurate of {} entries within the timing spread", ties)
               : "",
      later_failures(c));
  return r;
}

// What the PyTorch pick replaces: the framework's code storing the type, on this target.
std::string replaces(const std::vector<Candidate>& candidates, const std::string& dtype,
                     const std::string& target, const std::string& pick,
                     const std::string& framework) {
  const std::string theirs = framework_entry_for(dtype, framework);
  const Framework* f = find_framework(framework);
  if (theirs.empty() || theirs == pick || !f) return "";
  for (const Candidate& c : candidates) {
    if (c.name != theirs) continue;
    const auto h = c.plain.horizons.find(target);
    const std::string reach =
        h == c.plain.horizons.end() ? fmt::format("misses {} from position 0", target)
        : h->second == 0            ? fmt::format("meets {} at position 0 only", target)
                         : fmt::format("meets {} only up to position {}", target, h->second);
    return fmt::format("{} stored as {} (`{}`), which {}", f->words, dtype, theirs, reach);
  }
  return "";
}

// The cell's answer in PyTorch: the same rule among the entries float64 PyTorch code reproduces,
// and only where none meets the target among those whose code calls peverify's generator.
std::optional<PyTorchAdvice> pytorch_advice(const std::vector<Candidate>& candidates,
                                            const std::string& dtype, uint64_t context,
                                            const std::string& target,
                                            const std::string& framework) {
  Recommendation r;
  for (const SnippetKind kind : {SnippetKind::kFloat64, SnippetKind::kPeverify}) {
    std::vector<Candidate> with_code;
    for (const Candidate& c : candidates)
      if (const auto s = snippet_of(c.name); s && s->kind == kind) with_code.push_back(c);
    r = pick(with_code, "", dtype, context, target);
    if (!r.entry.empty()) break;
  }
  if (r.entry.empty()) return std::nullopt;
  const Snippet s = *snippet_of(r.entry);
  return PyTorchAdvice{r.entry, s.pytorch, s.cuda, r.evidence,
                       replaces(candidates, dtype, target, r.entry, framework)};
}

}  // namespace

std::vector<Recommendation> recommend(const std::vector<Candidate>& candidates,
                                      const std::vector<std::string>& dtypes,
                                      const std::vector<uint64_t>& contexts,
                                      const std::vector<std::string>& targets, bool unholdable,
                                      const std::string& framework) {
  std::vector<Recommendation> out;
  for (const std::string& dtype : dtypes)
    for (const uint64_t context : contexts)
      for (const std::string& target : targets)
        if (unholdable || !beyond(dtype, target)) {
          out.push_back(pick(candidates, "", dtype, context, target));
          out.back().pytorch = pytorch_advice(candidates, dtype, context, target, framework);
        }
  return out;
}

std::vector<Recommendation> recommend_for_model(const std::vector<Candidate>& candidates,
                                                const std::string& model,
                                                const std::vector<std::string>& dtypes,
                                                uint64_t positions,
                                                const std::vector<std::string>& targets) {
  std::vector<Recommendation> out;
  for (const std::string& dtype : dtypes)
    for (const std::string& target : targets)
      if (!beyond(dtype, target)) out.push_back(pick(candidates, model, dtype, positions, target));
  return out;
}

}  // namespace pev::reports::study
