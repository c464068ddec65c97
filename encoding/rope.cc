#include "peverify/encoding/rope.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pev {

std::string_view name_of(RopeType t) {
  switch (t) {
    case RopeType::kDefault:
      return "default";
    case RopeType::kLinear:
      return "linear";
    case RopeType::kDynamic:
      return "dynamic";
    case RopeType::kYarn:
      return "yarn";
    case RopeType::kLongRope:
      return "longrope";
    case RopeType::kLlama3:
      return "llama3";
    case RopeType::kProportional:
      return "proportional";
  }
  return "?";
}

std::optional<RopeType> parse_rope_type(std::string_view name) {
  if (name == "su") return RopeType::kLongRope;  // Phi-3's first configs
  for (RopeType t : {RopeType::kDefault, RopeType::kLinear, RopeType::kDynamic, RopeType::kYarn,
                     RopeType::kLongRope, RopeType::kLlama3, RopeType::kProportional})
    if (name == name_of(t)) return t;
  return std::nullopt;
}

bool operator==(const RopeScaling& a, const RopeScaling& b) {
  return a.type == b.type && a.factor == b.factor &&
         a.original_max_position == b.original_max_position && a.max_position == b.max_position &&
         a.sequence_length == b.sequence_length && a.beta_fast == b.beta_fast &&
         a.beta_slow == b.beta_slow && a.truncate == b.truncate && a.mscale == b.mscale &&
         a.mscale_all_dim == b.mscale_all_dim && a.attention_factor == b.attention_factor &&
         a.low_freq_factor == b.low_freq_factor && a.high_freq_factor == b.high_freq_factor &&
         a.short_factor == b.short_factor && a.long_factor == b.long_factor &&
         a.mrope_section == b.mrope_section && a.mrope_interleaved == b.mrope_interleaved &&
         a.partial_rotary_factor == b.partial_rotary_factor;
}

int mrope_stream(const RopeScaling& r, int pair) {
  const std::vector<int>& s = r.mrope_section;
  if (s.size() != 3) return 0;
  if (r.mrope_interleaved) {
    if (pair % 3 == 1 && pair < 3 * s[1]) return 1;
    if (pair % 3 == 2 && pair < 3 * s[2]) return 2;
    return 0;
  }
  if (pair < s[0]) return 0;
  return pair < s[0] + s[1] ? 1 : 2;
}

int rotated_pairs(const RopeScaling& r, int d) {
  if (r.type != RopeType::kProportional) return d / 2;
  // Python's int(p * head_dim // 2): the product rounded to double, floored by the halving.
  const double pairs = std::floor(r.partial_rotary_factor * d / 2);
  return static_cast<int>(std::clamp(pairs, 0.0, static_cast<double>(d / 2)));
}

bool needs_sequence_length(const RopeScaling& r) {
  return r.type == RopeType::kDynamic || r.type == RopeType::kLongRope;
}

namespace {

bool positive(double x) { return std::isfinite(x) && x > 0; }

}  // namespace

std::optional<std::string> validate_rope(const RopeScaling& r, int d) {
  const bool uses_factor = r.type == RopeType::kLinear || r.type == RopeType::kDynamic ||
                           r.type == RopeType::kYarn || r.type == RopeType::kLlama3 ||
                           r.type == RopeType::kProportional;
  if (uses_factor && !positive(r.factor))
    return fmt::format("rope_scaling.factor must be a finite number > 0, got {}", r.factor);
  if ((r.type == RopeType::kYarn || r.type == RopeType::kLongRope || r.type == RopeType::kLlama3) &&
      r.original_max_position == 0)
    return fmt::format("rope_scaling.original_max_position_embeddings is required by {}",
                       name_of(r.type));
  if (r.type == RopeType::kDynamic && r.max_position == 0)
    return std::string("max_position_embeddings is required by the dynamic recipe");
  if (needs_sequence_length(r) && r.sequence_length == 0)
    return fmt::format(
        "the {} recipe depends on the sequence length (the table's last position "
        "+ 1), which is missing",
        name_of(r.type));
  if (r.type == RopeType::kDynamic && d <= 2)
    return std::string("the dynamic recipe needs a rotary dimension > 2 (it divides by d - 2)");
  if (r.type == RopeType::kYarn) {
    if (!positive(r.beta_fast) || !positive(r.beta_slow))
      return std::string("rope_scaling.beta_fast and beta_slow must be numbers > 0");
    if (r.beta_fast < r.beta_slow)
      return fmt::format("rope_scaling.beta_fast ({}) must be >= beta_slow ({})", r.beta_fast,
                         r.beta_slow);
    for (const auto& [name, m] :
         {std::pair{"mscale", r.mscale}, {"mscale_all_dim", r.mscale_all_dim}})
      if (m && !std::isfinite(*m))
        return fmt::format("rope_scaling.{} must be a finite number", name);
  }
  if (r.type == RopeType::kLlama3) {
    if (!positive(r.low_freq_factor) || !positive(r.high_freq_factor))
      return std::string("rope_scaling.low_freq_factor and high_freq_factor must be numbers > 0");
    // Equal factors (Llama 4) leave no smoothed band: transformers computes that cache.
    if (!(r.low_freq_factor <= r.high_freq_factor))
      return fmt::format("rope_scaling.low_freq_factor ({}) must be <= high_freq_factor ({})",
                         r.low_freq_factor, r.high_freq_factor);
  }
  if (r.type == RopeType::kProportional &&
      !(r.partial_rotary_factor >= 0 && r.partial_rotary_factor <= 1))
    return fmt::format("rope_parameters.partial_rotary_factor must be in [0, 1], got {}",
                       r.partial_rotary_factor);
  if (r.type == RopeType::kLongRope) {
    for (const auto& [name, list] :
         {std::pair{"short_factor", &r.short_factor}, {"long_factor", &r.long_factor}}) {
      if (list->size() != static_cast<size_t>(d / 2))
        return fmt::format("rope_scaling.{} has {} numbers; rotary dimension {} needs {}", name,
                           list->size(), d, d / 2);
      for (double f : *list)
        if (!positive(f))
          return fmt::format("rope_scaling.{} holds {}, not a finite number > 0", name, f);
    }
  }
  if (!r.mrope_section.empty()) {
    const auto& s = r.mrope_section;
    if (s.size() != 3)
      return fmt::format(
          "rope_scaling.mrope_section must hold 3 numbers (temporal, height, "
          "width), got {}",
          s.size());
    for (int n : s)
      if (n < 0) return fmt::format("rope_scaling.mrope_section holds {}, not a count", n);
    const int64_t sum = int64_t{s[0]} + s[1] + s[2];
    if (!r.mrope_interleaved && sum != d / 2)
      return fmt::format(
          "rope_scaling.mrope_section [{}, {}, {}] sums to {}; rotary dimension {} has {} pairs",
          s[0], s[1], s[2], sum, d, d / 2);
    // Interleaved: torch's slices past the last pair select nothing, so any counts compute.
  }
  if (r.attention_factor && r.type != RopeType::kYarn && r.type != RopeType::kLongRope)
    return fmt::format("rope_scaling.attention_factor is used by yarn and longrope only, not {}",
                       name_of(r.type));
  if (r.attention_factor && !positive(*r.attention_factor))
    return fmt::format("rope_scaling.attention_factor must be a finite number > 0, got {}",
                       *r.attention_factor);
  if (!positive(rope_double::attention_factor(r)))
    return fmt::format("the {} recipe's attention factor is {}, not a number > 0", name_of(r.type),
                       rope_double::attention_factor(r));
  return std::nullopt;
}

namespace {

std::string describe_frequencies(const RopeScaling& r) {
  switch (r.type) {
    case RopeType::kDefault:
      return "default";
    case RopeType::kLinear:
      return fmt::format("linear(factor={:g})", r.factor);
    case RopeType::kDynamic:
      return fmt::format("dynamic(factor={:g}, max_position={}, sequence={})", r.factor,
                         r.max_position, r.sequence_length);
    case RopeType::kYarn:
      return fmt::format("yarn(factor={:g}, L0={}, beta {:g}/{:g}, attention {:.7g})", r.factor,
                         r.original_max_position, r.beta_fast, r.beta_slow,
                         rope_double::attention_factor(r));
    case RopeType::kLongRope:
      return fmt::format("longrope(L0={}, {} factors, attention {:.7g})", r.original_max_position,
                         r.sequence_length > r.original_max_position ? "long" : "short",
                         rope_double::attention_factor(r));
    case RopeType::kLlama3:
      return fmt::format("llama3(factor={:g}, low={:g}, high={:g}, L0={})", r.factor,
                         r.low_freq_factor, r.high_freq_factor, r.original_max_position);
    case RopeType::kProportional:
      return fmt::format("proportional(partial_rotary_factor={:g}, factor={:g})",
                         r.partial_rotary_factor, r.factor);
  }
  return "?";
}

}  // namespace

std::string describe(const RopeScaling& r) {
  std::string text = describe_frequencies(r);
  if (!r.mrope_section.empty())
    text += fmt::format(" + mrope{}[{}]", r.mrope_interleaved ? "-interleaved" : "",
                        fmt::join(r.mrope_section, ", "));
  return text;
}

namespace rope_double {
namespace {

// yarn's attention scaling g(s, m) = 0.1 m ln s + 1 (1 when s <= 1).
double mscale_of(double s, double m) { return s <= 1 ? 1.0 : 0.1 * m * std::log(s) + 1.0; }

}  // namespace

double dynamic_base(const RopeScaling& r, double base, int d) {
  const double L = static_cast<double>(r.max_position);
  const double n = std::max(static_cast<double>(r.sequence_length), L);
  return base * std::pow(r.factor * n / L - (r.factor - 1), static_cast<double>(d) / (d - 2));
}

YarnRange yarn_range(const RopeScaling& r, double base, int d) {
  const double L0 = static_cast<double>(r.original_max_position);
  const auto correction_dim = [&](double rotations) {
    return d * std::log(L0 / (rotations * 2 * std::numbers::pi)) / (2 * std::log(base));
  };
  double low = correction_dim(r.beta_fast), high = correction_dim(r.beta_slow);
  if (r.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, static_cast<double>(d - 1));
  if (low == high) high += 0.001;  // Hugging Face's guard against a zero-width ramp
  return {low, high};
}

double yarn_ramp(const YarnRange& range, int pair) {
  return std::clamp((pair - range.low) / (range.high - range.low), 0.0, 1.0);
}

double frequency(const RopeScaling& r, double base, int d, int pair) {
  const double e = -2.0 * pair / d;
  switch (r.type) {
    case RopeType::kDefault:
      return std::pow(base, e);
    case RopeType::kLinear:
      return std::pow(base, e) / r.factor;
    case RopeType::kDynamic:
      return std::pow(dynamic_base(r, base, d), e);
    case RopeType::kYarn: {
      const double theta = std::pow(base, e);
      const double ramp = yarn_ramp(yarn_range(r, base, d), pair);
      return theta / r.factor * ramp + theta * (1 - ramp);
    }
    case RopeType::kLongRope: {
      const bool long_list = r.sequence_length > r.original_max_position;
      return std::pow(base, e) / (long_list ? r.long_factor : r.short_factor)[pair];
    }
    case RopeType::kLlama3: {
      const double theta = std::pow(base, e);
      const double L0 = static_cast<double>(r.original_max_position);
      const double wavelength = 2 * std::numbers::pi / theta;
      if (wavelength < L0 / r.high_freq_factor) return theta;
      if (wavelength > L0 / r.low_freq_factor) return theta / r.factor;
      // Equal factors leave no smoothed band; a double can still tie at the one edge.
      if (r.high_freq_factor == r.low_freq_factor) return theta;
      const double m =
          (L0 / wavelength - r.low_freq_factor) / (r.high_freq_factor - r.low_freq_factor);
      return (1 - m) * theta / r.factor + m * theta;
    }
    case RopeType::kProportional:  // the exponent over the whole d (head_dim), the tail 0
      return pair < rotated_pairs(r, d) ? std::pow(base, e) / r.factor : 0.0;
  }
  return 0;
}

double attention_factor(const RopeScaling& r) {
  if (r.attention_factor) return *r.attention_factor;
  switch (r.type) {
    case RopeType::kYarn:
      if (r.mscale && r.mscale_all_dim && *r.mscale != 0 && *r.mscale_all_dim != 0)
        return mscale_of(r.factor, *r.mscale) / mscale_of(r.factor, *r.mscale_all_dim);
      return mscale_of(r.factor, 1.0);
    case RopeType::kLongRope: {
      const double s = r.max_position && r.original_max_position
                           ? static_cast<double>(r.max_position) / r.original_max_position
                           : r.factor;
      if (s <= 1) return 1.0;
      return std::sqrt(1 + std::log(s) / std::log(static_cast<double>(r.original_max_position)));
    }
    default:
      return 1.0;
  }
}

}  // namespace rope_double

std::vector<PairConditioning> recipe_conditioning(const RopeScaling& r, double base, int d) {
  std::vector<PairConditioning> c(d / 2);
  const auto set_extra = [&](double x) {
    for (PairConditioning& p : c) p.extra = x;
  };
  // Each term counts roundings of the recipe's own arithmetic in the compute type (the
  // derivations are in docs/mathematics.md §3.2); llama3's smoothing also amplifies the error the
  // frequencies already carry, which the Judge scales by the claim's C.
  switch (r.type) {
    case RopeType::kDefault:
      break;
    case RopeType::kLinear:  // the factor's rounding to the compute type, the division
      set_extra(2);
      break;
    case RopeType::kDynamic:  // the rescaled base's rounding to the compute type
      set_extra(1);
      break;
    case RopeType::kProportional:  // as linear where pairs rotate; w = 0 is exact
      if (r.factor != 1)
        for (int j = 0; j < rotated_pairs(r, d); ++j) c[j].extra = 2;
      break;
    case RopeType::kLongRope:  // the factor's rounding, the product, the reciprocal
      set_extra(3);
      break;
    case RopeType::kYarn: {
      const rope_double::YarnRange range = rope_double::yarn_range(r, base, d);
      const double s = r.factor;
      // A rounded ramp of width w = high - low (and its rounded ends when not truncated) is
      // off by at most ~(1 + (|low| + |high| + j) / w) u absolutely; the interpolated part
      // (1/(s p): 3 roundings) and the blend (2 products, a sum) add 5u relatively.
      const double width = range.high - range.low;
      for (int j = 0; j < d / 2; ++j) {
        const double ramp = rope_double::yarn_ramp(range, j);
        const double f = ramp / s + (1 - ramp);
        if (ramp == 0 || ramp == 1) {
          c[j].extra = 3;  // clamped: exact coefficients
          continue;
        }
        const double ramp_error =
            r.truncate ? 3.0 : 3.0 + (std::fabs(range.low) + std::fabs(range.high) + j) / width;
        c[j].extra = 5 + (3 / s + ramp_error * std::fabs(1 - 1 / s)) / f;
      }
      break;
    }
    case RopeType::kLlama3: {
      const double L0 = static_cast<double>(r.original_max_position);
      const double lf = r.low_freq_factor, hf = r.high_freq_factor, s = r.factor;
      for (int j = 0; j < d / 2; ++j) {
        const double theta = std::pow(base, -2.0 * j / d);
        const double wavelength = 2 * std::numbers::pi / theta;
        if (wavelength < L0 / hf) continue;
        if (wavelength > L0 / lf) {
          c[j].extra = 2;  // the factor's rounding, the division
          continue;
        }
        if (hf == lf) continue;            // no smoothed band (Llama 4): only a double's tie
        const double x = L0 / wavelength;  // in [lf, hf]
        const double m = (x - lf) / (hf - lf);
        const double f = (1 - m) / s + m;
        // d ln w / d ln theta - 1: theta's error moves m, which the blend amplifies.
        c[j].gain = x / (hf - lf) * std::fabs(1 - 1 / s) / f;
        // 2 pi's rounding and the division, L0 / wavelength, the subtraction and the division
        // in m (5u of x, amplified like theta's error), then the blend (3u) and the factor (2u).
        c[j].extra = 5 * c[j].gain + 5;
      }
      break;
    }
  }
  return c;
}

}  // namespace pev
