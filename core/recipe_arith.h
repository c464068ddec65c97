// Rotary recipes as frameworks compute them (docs/mathematics.md §12.3), written once over an
// arithmetic A of the compute type: glibc/compute_type.h's adaptors on the CPU (the SLEEF and
// Highway entries use its Float32 for these few per-pair operations), device_math.cuh's on the
// GPU, model_arith.h's in the GPU's host twin. Compiled by g++ and by nvcc (C++17).
//
// The arithmetic is Hugging Face's float32 tensor code, operation by operation
// (huggingface/transformers src/transformers/modeling_rope_utils.py, _compute_*_parameters):
// a Python float meets a tensor rounded to the tensor's type (RecipeScalars holds those Python
// floats, computed in double on the host), and `x / tensor` is torch's `__rdiv__`,
// `tensor.reciprocal() * x` (pytorch/pytorch torch/_tensor.py), so `1.0 / t` is a correctly
// rounded reciprocal and `2 * math.pi / t` a reciprocal times fl(2 pi). vLLM builds the same
// inv_freq in float32 (vllm/model_executor/layers/rotary_embedding/*.py, `_compute_inv_freq`).
//
// A strategy hands in, per pair, the value it computes today: its frequency theta_j (logspace's
// exp(2j c)) or theta_j's reciprocal b^(2j/d) (pow's denominator, Hugging Face's `pos_freqs`).
// With a recipe the angle is then pos * w_j, as Hugging Face's `inv_freq @ position_ids`.
#pragma once

#include "peverify/encoding/host_device.h"
#include "peverify/encoding/rope.h"

namespace pev::core {

// The Python floats of a recipe, computed once in double on the host (core/recipe.h) the way
// Hugging Face computes them before they meet a tensor. Plain data: kernels take it by value.
struct RecipeScalars {
  RopeType type = RopeType::kDefault;
  double factor = 1;     // s
  double attention = 1;  // A, the factor every value is multiplied by
  // yarn: linear_ramp_factor's min and max - min (after math.floor / math.ceil, the clamps to
  // [0, d - 1] and the + 0.001 when they are equal).
  double ramp_low = 0, ramp_width = 1;
  // llama3: old_context_len, low_freq_wavelen = L0 / low_freq_factor, high_freq_wavelen =
  // L0 / high_freq_factor, low_freq_factor, high_freq_factor - low_freq_factor.
  double context = 0, low_freq_wavelen = 0, high_freq_wavelen = 0;
  double low_freq_factor = 0, smooth_width = 1;
  // longrope: the d/2 factors the sequence length chooses (long_factor past L0), as doubles.
  const double* ext_factors = nullptr;
  // proportional: rope_angles, the pairs that rotate; the rest have inv_freq 0.
  int rotated_pairs = 0;
};

// 2 * math.pi, the Python float.
inline constexpr double kTwoPi = 6.283185307179586;

// Whether the angle is pos / f (pow's denominators, no recipe) rather than pos * f.
PEV_HD inline bool angle_divides(bool pow_denominators, const RecipeScalars& r) {
  return pow_denominators && r.type == RopeType::kDefault;
}

// Pair j's value under the recipe, from the strategy's value f (its frequency theta_j, or with
// f_is_denominator its reciprocal b^(2j/d)). The default recipe returns f unchanged; every other
// returns the frequency w_j.
template <class A>
PEV_HD typename A::T recipe_frequency(const A& a, const RecipeScalars& r, int pair, typename A::T f,
                                      bool f_is_denominator) {
  using T = typename A::T;
  if (r.type == RopeType::kDefault) return f;
  const T one = a.from_double(1.0);
  // _compute_default_rope_parameters: inv_freq = 1.0 / (base ** (arange(0, d, 2) / d)).
  const T theta = f_is_denominator ? a.div(one, f) : f;
  const T s = a.from_double(r.factor);
  switch (r.type) {
    case RopeType::kDefault:
    case RopeType::kDynamic:  // the caller raised the rescaled base (recipe.h, strategy_base)
      return theta;
    case RopeType::kLinear:  // inv_freq /= factor
      return a.div(theta, s);
    case RopeType::kYarn: {
      // inv_freq_extrapolation = 1.0 / pos_freqs, inv_freq_interpolation = 1.0 / (factor *
      // pos_freqs); a strategy without pos_freqs divides its frequency by the factor.
      const T interpolation = f_is_denominator ? a.div(one, a.mul(f, s)) : a.div(theta, s);
      // linear_ramp_factor: (arange(d/2, float32) - min) / (max - min), clamped to [0, 1].
      T ramp =
          a.div(a.sub(a.from_double(pair), a.from_double(r.ramp_low)), a.from_double(r.ramp_width));
      const T zero = a.from_double(0.0);
      ramp = ramp < zero ? zero : (ramp > one ? one : ramp);
      // inv_freq_extrapolation_factor = 1 - ramp; the blend as written, (1 - e) included.
      const T e = a.sub(one, ramp);
      return a.add(a.mul(interpolation, a.sub(one, e)), a.mul(theta, e));
    }
    case RopeType::kLongRope: {
      // ext_factors = tensor(list, float32); inv_freq = 1.0 / (ext_factors * base ** shape).
      const T ext = a.from_double(r.ext_factors[pair]);
      return f_is_denominator ? a.div(one, a.mul(ext, f)) : a.div(theta, ext);
    }
    case RopeType::kLlama3: {
      // wavelen = 2 * math.pi / inv_freq (a reciprocal times fl(2 pi)); the band tests compare
      // float32 tensors with Python floats rounded to float32.
      const T wavelen = a.mul(a.div(one, theta), a.from_double(kTwoPi));
      const bool long_wave = wavelen > a.from_double(r.low_freq_wavelen);
      const bool short_wave = wavelen < a.from_double(r.high_freq_wavelen);
      // inv_freq_llama = where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
      const T scaled = long_wave ? a.div(theta, s) : theta;
      if (long_wave || short_wave) return scaled;
      // smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high - low);
      // smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama.
      const T smooth = a.div(a.sub(a.mul(a.div(one, wavelen), a.from_double(r.context)),
                                   a.from_double(r.low_freq_factor)),
                             a.from_double(r.smooth_width));
      return a.add(a.div(a.mul(a.sub(one, smooth), scaled), s), a.mul(smooth, scaled));
    }
    case RopeType::kProportional:
      // _compute_proportional_rope_parameters: inv_freq_rotated = 1.0 / (base ** (arange(0,
      // 2 rope_angles, 2) / head_dim)), cat with zeros, then inv_freq /= factor.
      return pair < r.rotated_pairs ? a.div(theta, s) : a.from_double(0.0);
  }
  return f;
}

// Whether the values are scaled (A != 1: yarn and longrope); scaling by 1 would change nothing.
PEV_HD inline bool scales_values(const RecipeScalars& r) { return r.attention != 1; }

// cos * attention_scaling (Hugging Face's forward, in float32 before `.to(x.dtype)`).
template <class A>
PEV_HD typename A::T attention_scaled(const A& a, const RecipeScalars& r, typename A::T x) {
  return a.mul(x, a.from_double(r.attention));
}

}  // namespace pev::core
