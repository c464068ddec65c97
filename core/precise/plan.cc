#include "peverify/core/precise/plan.h"

#include <algorithm>

#include "peverify/core/precise/frequencies.h"

namespace pev::core::precise {
namespace {

// Plain tables are one plan whatever their recipe fields say (a sequence length, say).
bool same_recipe(const RopeScaling& a, const RopeScaling& b) {
  return a.type == b.type && (a.type == RopeType::kDefault || a == b);
}

}  // namespace

std::shared_ptr<const Plan> PlanCache::get(const TableSpec& spec, size_t lanes, size_t chunk_pairs,
                                           const std::function<void(Plan&)>& build_table) {
  const size_t chunk = std::max(lanes, chunk_pairs / lanes * lanes);
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->d_model == spec.d_model && it->base == spec.base && it->schedule == spec.schedule &&
        same_recipe(it->rope, spec.rope) && it->lanes == lanes && it->chunk == chunk) {
      std::rotate(it, it + 1, entries_.end());
      return entries_.back().plan;
    }
  }
  auto plan = std::make_shared<Plan>();
  plan->pairs = spec.d_model / 2;
  plan->padded = (static_cast<size_t>(plan->pairs) + lanes - 1) / lanes * lanes;
  plan->chunk = chunk;
  plan->attention = attention_in_double(spec);
  plan->w_hi = hwy::AllocateAligned<double>(plan->padded);
  plan->w_lo = hwy::AllocateAligned<double>(plan->padded);
  const std::vector<DoubleDouble> w = double_double_frequencies(spec);
  for (size_t k = 0; k < plan->padded; ++k) {
    plan->w_hi[k] = k < w.size() ? w[k].hi : 0.0;
    plan->w_lo[k] = k < w.size() ? w[k].lo : 0.0;
  }
  plan->table_sin = hwy::AllocateAligned<double>(kAnchorInterval * plan->padded);
  plan->table_cos = hwy::AllocateAligned<double>(kAnchorInterval * plan->padded);
  plan->table_sin_f = hwy::AllocateAligned<float>(kAnchorInterval * plan->padded);
  plan->table_cos_f = hwy::AllocateAligned<float>(kAnchorInterval * plan->padded);
  build_table(*plan);
  if (entries_.size() == kCapacity) entries_.erase(entries_.begin());
  entries_.push_back({spec.d_model, spec.base, spec.schedule, spec.rope, lanes, chunk, plan});
  return plan;
}

}  // namespace pev::core::precise
