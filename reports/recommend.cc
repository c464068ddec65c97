// The recommendation: for each output type, context length and accuracy target, the fastest
// implementation whose horizon reaches the context.
#include <fmt/format.h>

#include "reports/study.h"

namespace pev::reports {

std::vector<Recommendation> recommend(const std::vector<EntryResult>& entries,
                                      const std::vector<std::string>& dtypes,
                                      const std::vector<uint64_t>& contexts,
                                      const std::vector<std::string>& targets) {
  std::vector<Recommendation> out;
  for (const std::string& dtype : dtypes)
    for (const uint64_t context : contexts)
      for (const std::string& target : targets) {
        Recommendation r{dtype, context, target, "", ""};
        const EntryResult* best = nullptr;
        for (const EntryResult& e : entries) {
          if (e.output != dtype || !e.available || !e.values_per_s) continue;
          const auto h = e.horizons.find(target);
          if (h == e.horizons.end() || h->second + 1 < context) continue;
          if (!best || *e.values_per_s > *best->values_per_s) best = &e;
        }
        if (best) {
          r.entry = best->name;
          r.evidence = fmt::format(
              "meets {} up to position {} (sampled); {:.3g} values/s, {:.2f} of the store "
              "roofline; max abs error {:.3g} over the study",
              target, best->horizons.at(target), *best->values_per_s,
              best->roofline_ratio.value_or(0), best->max_abs);
        } else {
          r.evidence = "no implementation available here meets it";
        }
        out.push_back(r);
      }
  return out;
}

}  // namespace pev::reports
