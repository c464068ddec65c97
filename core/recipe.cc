#include "peverify/core/recipe.h"

namespace pev::core {

const std::vector<RopeType>& every_recipe() {
  static const std::vector<RopeType> all = {
      RopeType::kDefault,  RopeType::kLinear, RopeType::kDynamic,     RopeType::kYarn,
      RopeType::kLongRope, RopeType::kLlama3, RopeType::kProportional};
  return all;
}

RecipeScalars recipe_scalars(const TableSpec& spec) {
  const RopeScaling& r = spec.rope;
  RecipeScalars s;
  s.type = r.type;
  s.factor = r.factor;
  s.attention = attention_factor(spec);
  switch (r.type) {
    case RopeType::kYarn: {
      const rope_double::YarnRange range = rope_double::yarn_range(r, spec.base, spec.d_model);
      s.ramp_low = range.low;
      s.ramp_width = range.high - range.low;  // Python: (max - min)
      break;
    }
    case RopeType::kLlama3: {
      const auto context = static_cast<double>(r.original_max_position);
      s.context = context;
      s.low_freq_wavelen = context / r.low_freq_factor;
      s.high_freq_wavelen = context / r.high_freq_factor;
      s.low_freq_factor = r.low_freq_factor;
      s.smooth_width = r.high_freq_factor - r.low_freq_factor;
      break;
    }
    case RopeType::kLongRope:
      // _compute_longrope_parameters: long_factor when seq_len > original_max_position_embeddings.
      s.ext_factors = r.sequence_length > r.original_max_position ? r.long_factor.data()
                                                                  : r.short_factor.data();
      break;
    case RopeType::kProportional:
      s.rotated_pairs = rotated_pairs(r, spec.d_model);
      break;
    default:
      break;
  }
  return s;
}

double strategy_base(const TableSpec& spec) {
  if (spec.rope.type != RopeType::kDynamic) return spec.base;
  return rope_double::dynamic_base(spec.rope, spec.base, spec.d_model);
}

bool claims_frequencies(const Implementation& impl, const TableSpec& spec) {
  if (strategy_base(spec) > impl.max_base) return false;
  if (impl.min_frequency > 0)
    for (int j = 0; j < spec.d_model / 2; ++j)
      if (frequency(spec, j) < impl.min_frequency) return false;
  return true;
}

}  // namespace pev::core
