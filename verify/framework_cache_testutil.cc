#include "peverify/verify/framework_cache_testutil.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "peverify/encoding/format.h"

namespace pev::verify::testutil {
namespace {

// Python floats meet a float32 tensor rounded to float32.
float f32(double x) { return static_cast<float>(x); }

// Rounds to the storage type (nearest even), widened back.
double stored(float x, Dtype output) {
  switch (output) {
    case Dtype::kFloat16:
      return static_cast<double>(static_cast<_Float16>(x));
    case Dtype::kBFloat16: {
      // Round a float to bfloat16, nearest even (x is finite here).
      uint32_t b;
      std::memcpy(&b, &x, 4);
      b += 0x7fff + ((b >> 16) & 1);
      b &= 0xffff0000u;
      float r;
      std::memcpy(&r, &b, 4);
      return r;
    }
    default:
      return x;
  }
}

}  // namespace

std::string name_of(Bug b) {
  switch (b) {
    case Bug::kNone:
      return "none";
    case Bug::kUnscaledLlama3:
      return "llama3 frequencies unscaled (transformers#32330)";
    case Bug::kAttentionIgnored:
      return "attention factor ignored (vllm PR#46280)";
    case Bug::kYarnRangeFromExtended:
      return "YaRN range from the extended length (Megatron-LM#1418)";
    case Bug::kLinearTwice:
      return "linear factor applied twice";
    case Bug::kDynamicNotRescaled:
      return "dynamic base never rescaled (vllm#41236)";
    case Bug::kShortFactorsPastL0:
      return "short LongRoPE factors past the original length (llama.cpp#24823)";
    case Bug::kBFloat16InvFreq:
      return "inv_freq in bfloat16 (transformers#29496)";
    case Bug::kRotaryDimAsHeadDim:
      return "rotary dimension taken as the head's (vllm#43676)";
    case Bug::kMscaleAllDimIgnored:
      return "yarn's mscale_all_dim ignored";
    case Bug::kProportionalOverRotated:
      return "proportional exponent over the rotated pairs, not head_dim (pegainfer#820)";
  }
  return "?";
}

std::vector<float> framework_inv_freq(const TableSpec& spec, Bug bug, int head_dim) {
  const RopeScaling& r = spec.rope;
  // The buggy code computes a whole head's frequencies; the cache keeps the first d/2 of them.
  const int d = bug == Bug::kRotaryDimAsHeadDim ? head_dim : spec.d_model, half = spec.d_model / 2;
  double base = spec.base;
  if (r.type == RopeType::kDynamic && bug != Bug::kDynamicNotRescaled)
    base = rope_double::dynamic_base(r, spec.base, d);  // Python float arithmetic
  // 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)): float32 throughout.
  std::vector<float> pos_freqs(half), inv(half);
  for (int j = 0; j < half; ++j) {
    const float e = static_cast<float>(2 * j) / static_cast<float>(d);
    pos_freqs[j] = std::pow(f32(base), e);
    inv[j] = 1.0f / pos_freqs[j];
  }
  switch (r.type) {
    case RopeType::kDefault:
    case RopeType::kDynamic:
      break;
    case RopeType::kLinear:
      for (float& w : inv) w /= f32(r.factor);
      if (bug == Bug::kLinearTwice)
        for (float& w : inv) w /= f32(r.factor);
      break;
    case RopeType::kYarn: {
      RopeScaling range_recipe = r;
      if (bug == Bug::kYarnRangeFromExtended)
        range_recipe.original_max_position =
            static_cast<uint64_t>(std::llround(r.original_max_position * r.factor));
      const rope_double::YarnRange range = rope_double::yarn_range(range_recipe, spec.base, d);
      for (int j = 0; j < half; ++j) {
        const float interpolation = 1.0f / (f32(r.factor) * pos_freqs[j]);
        // linear_ramp_factor in float32, then extrapolation factor 1 - ramp.
        // (arange(dim).float() - low) / (high - low): low and high are Python floats.
        const float ramp = std::clamp(
            (static_cast<float>(j) - f32(range.low)) / f32(range.high - range.low), 0.0f, 1.0f);
        const float extrapolation_factor = 1.0f - ramp;
        inv[j] = interpolation * (1.0f - extrapolation_factor) + inv[j] * extrapolation_factor;
      }
      break;
    }
    case RopeType::kLongRope: {
      const bool long_list =
          r.sequence_length > r.original_max_position && bug != Bug::kShortFactorsPastL0;
      const std::vector<double>& ext = long_list ? r.long_factor : r.short_factor;
      for (int j = 0; j < half; ++j) inv[j] = 1.0f / (f32(ext[j]) * pos_freqs[j]);
      break;
    }
    case RopeType::kLlama3: {
      if (bug == Bug::kUnscaledLlama3) break;
      const float L0 = f32(static_cast<double>(r.original_max_position));
      // old_context_len / low_freq_factor: Python floats, met by the float32 tensor.
      const float low_wavelen = f32(r.original_max_position / r.low_freq_factor);
      const float high_wavelen = f32(r.original_max_position / r.high_freq_factor);
      for (int j = 0; j < half; ++j) {
        const float wavelen = f32(2 * std::numbers::pi) / inv[j];  // 2 * math.pi / inv_freq
        const float scaled = wavelen > low_wavelen ? inv[j] / f32(r.factor) : inv[j];
        const float smooth = (L0 / wavelen - f32(r.low_freq_factor)) /
                             (f32(r.high_freq_factor) - f32(r.low_freq_factor));
        const float smoothed = (1.0f - smooth) * scaled / f32(r.factor) + smooth * scaled;
        const bool medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);
        inv[j] = medium ? smoothed : scaled;
      }
      break;
    }
    case RopeType::kProportional: {
      // inv_freq_rotated over arange(0, 2a, 2) / head_dim, zeros after, then /= factor; the bug
      // divides by the rotated width 2a instead.
      const int a = rotated_pairs(r, d);
      const float width = static_cast<float>(bug == Bug::kProportionalOverRotated ? 2 * a : d);
      for (int j = 0; j < half; ++j) {
        inv[j] = j < a ? 1.0f / std::pow(f32(base), static_cast<float>(2 * j) / width) : 0.0f;
        inv[j] /= f32(r.factor);
      }
      break;
    }
  }
  if (bug == Bug::kBFloat16InvFreq)
    for (float& w : inv) w = static_cast<float>(stored(w, Dtype::kBFloat16));
  return inv;
}

std::vector<double> framework_cache(const TableSpec& spec, uint64_t rows, Dtype output, Bug bug,
                                    int head_dim) {
  const std::vector<float> inv = framework_inv_freq(spec, bug, head_dim);
  RopeScaling attention_recipe = spec.rope;
  // Without mscale_all_dim the recipe falls back to g(s, 1): DeepSeek-V3's 1 becomes 1.369.
  if (bug == Bug::kMscaleAllDimIgnored) attention_recipe.mscale_all_dim.reset();
  const float att =
      bug == Bug::kAttentionIgnored ? 1.0f : f32(rope_double::attention_factor(attention_recipe));
  const int width = table_width(spec);
  std::vector<double> out(rows * static_cast<uint64_t>(width));
  for (uint64_t r = 0; r < rows; ++r) {
    const float pos = static_cast<float>(spec.start + r);  // position_ids.float()
    for (int c = 0; c < width; ++c) {
      const Column col = column_at(spec, c);
      const float angle = inv[col.pair] * pos;
      const float v = (col.is_sin ? std::sin(angle) : std::cos(angle)) * att;
      out[r * width + c] = stored(v, output);
    }
  }
  return out;
}

// The failing verdict's worst element, described; empty when nothing failed or nothing is named.
std::string named_failure(const VerifyResult& r) {
  for (const properties::PropertyVerdict& v : r.verdicts)
    if (!v.holds && !v.worst.empty())
      return v.property + " at position " + std::to_string(v.worst.front().pos) + ", column " +
             std::to_string(v.worst.front().column);
  return "";
}

}  // namespace pev::verify::testutil
