// The recommendation: for each output type, context length and accuracy target, the fastest
// implementation whose horizon reaches the context.
#include <fmt/format.h>

#include "reports/report_text.h"
#include "reports/study.h"

namespace pev::reports {

namespace {

// The horizons an entry has for `model` (its plain horizons when model is empty), or nullptr.
const std::map<std::string, uint64_t>* horizons_for(const EntryResult& e,
                                                    const std::string& model) {
  if (model.empty()) return &e.horizons;
  for (const ModelResult& m : e.models)
    if (m.model == model) return &m.horizons;
  return nullptr;
}

Recommendation pick(const std::vector<EntryResult>& entries, const std::string& model,
                    const std::string& dtype, uint64_t context, const std::string& target) {
  Recommendation r{model, dtype, context, target, "", ""};
  const EntryResult* best = nullptr;
  uint64_t best_horizon = 0;
  for (const EntryResult& e : entries) {
    if (e.output != dtype || !e.available || !e.values_per_s) continue;
    const std::map<std::string, uint64_t>* horizons = horizons_for(e, model);
    if (!horizons) continue;
    const auto h = horizons->find(target);
    if (h == horizons->end() || h->second + 1 < context) continue;
    if (!best || *e.values_per_s > *best->values_per_s) {
      best = &e;
      best_horizon = h->second;
    }
  }
  if (best) {
    r.entry = best->name;
    r.evidence = fmt::format(
        "meets {} up to position {} (sampled); {:.3g} values/s, {:.2f} of the store roofline{}",
        target, best_horizon, *best->values_per_s, best->roofline_ratio.value_or(0),
        model.empty() ? fmt::format("; max abs error {:.3g} over the study", best->max_abs) : "");
  } else {
    r.evidence = unmet_reason(dtype, target);
  }
  return r;
}

}  // namespace

std::vector<Recommendation> recommend(const std::vector<EntryResult>& entries,
                                      const std::vector<std::string>& dtypes,
                                      const std::vector<uint64_t>& contexts,
                                      const std::vector<std::string>& targets) {
  std::vector<Recommendation> out;
  for (const std::string& dtype : dtypes)
    for (const uint64_t context : contexts)
      for (const std::string& target : targets)
        out.push_back(pick(entries, "", dtype, context, target));
  return out;
}

std::vector<Recommendation> recommend_for_model(const std::vector<EntryResult>& entries,
                                                const std::string& model,
                                                const std::vector<std::string>& dtypes,
                                                uint64_t positions,
                                                const std::vector<std::string>& targets) {
  std::vector<Recommendation> out;
  for (const std::string& dtype : dtypes)
    for (const std::string& target : targets)
      out.push_back(pick(entries, model, dtype, positions, target));
  return out;
}

}  // namespace pev::reports
