// The sinusoidal tables as the frameworks compute them, operation by operation (each rounding in
// the order and type of the code named):
//   - diffusers get_timestep_embedding (src/diffusers/models/embeddings.py) and ADM's
//     timestep_embedding (openai/guided-diffusion guided_diffusion/nn.py): the exponent
//     -ln(P) * k in float32 (ln P a Python double rounded to float32 by the multiply), divided by
//     h - s in float32, exp in float32, t.float() * f, then scale * (t f), sin and cos in float32;
//   - BFL Flux's rope (src/flux/math.py, float32 ids since flux#195): 2j/d in float32, theta to
//     that power in float32, its reciprocal, x * omega, cos and sin in float32;
//   - a float64 computation rounded once to the output (Wan2.1's sinusoidal_embedding_1d, the
//     float64 frequencies diffusers' Flux / Wan / Z-Image embeddings use).
// glibc's sinf, cosf, expf and powf stand for PyTorch's CPU kernels, which are within an ulp of
// them; the float32 claim's C covers both.
#include <cmath>

#include "peverify/core/sinusoids/sinusoid_registry.h"

namespace pev::core {
namespace {

void fill_diffusers_timestep(const SinusoidImplementation& self, const SinusoidTable& t,
                             const AxisPositions& p, void* out) {
  std::vector<float> f(t.frequencies.size());
  for (size_t k = 0; k < f.size(); ++k) {
    const SinusoidFrequency& w = t.frequencies[k];
    const float exponent = static_cast<float>(-std::log(w.base)) *
                           static_cast<float>(-w.numerator);  // -ln(P) * arange(half)
    f[k] = std::exp(exponent / static_cast<float>(w.denominator));
  }
  const float scale = static_cast<float>(t.scale);
  fill_by_frequency(self, t, p, out, [&](int k, double x, double& s, double& c) {
    float a = static_cast<float>(x) * f[static_cast<size_t>(k)];
    if (scale != 1.0f) a = scale * a;
    s = std::sin(a);
    c = std::cos(a);
  });
}

void fill_bfl_axes(const SinusoidImplementation& self, const SinusoidTable& t,
                   const AxisPositions& p, void* out) {
  std::vector<float> omega(t.frequencies.size());
  for (size_t j = 0; j < omega.size(); ++j) {
    const SinusoidFrequency& w = t.frequencies[j];
    const float scale = static_cast<float>(-w.numerator) / static_cast<float>(w.denominator);
    omega[j] = 1.0f / std::pow(static_cast<float>(w.base), scale);
  }
  fill_by_frequency(self, t, p, out, [&](int j, double x, double& s, double& c) {
    const float a = static_cast<float>(x) * omega[static_cast<size_t>(j)];
    s = std::sin(a);
    c = std::cos(a);
  });
}

void fill_float64(const SinusoidImplementation& self, const SinusoidTable& t,
                  const AxisPositions& p, void* out) {
  std::vector<double> w(t.frequencies.size());
  for (size_t k = 0; k < w.size(); ++k) w[k] = t.frequencies[k].value();
  fill_by_frequency(self, t, p, out, [&](int k, double x, double& s, double& c) {
    const double a = t.scale * (x * w[static_cast<size_t>(k)]);
    s = std::sin(a);
    c = std::cos(a);
  });
}

SinusoidImplementation entry(std::string name, std::string kind, Dtype compute, Dtype output,
                             std::string description,
                             void (*fill)(const SinusoidImplementation&, const SinusoidTable&,
                                          const AxisPositions&, void*)) {
  return {std::move(name),       std::move(kind),        compute, output,
          Claim::model(compute), std::move(description), fill};
}

}  // namespace

std::vector<SinusoidImplementation> framework_sinusoid_entries() {
  return {
      entry("cpu/diffusers-timestep/f32>f32", "timestep embedding", Dtype::kFloat32,
            Dtype::kFloat32, "diffusers get_timestep_embedding / ADM timestep_embedding in float32",
            fill_diffusers_timestep),
      entry("cpu/diffusers-timestep/f32>bf16", "timestep embedding", Dtype::kFloat32,
            Dtype::kBFloat16,
            "the same cast to bfloat16 (SD3.5, BFL Flux: .to(t.dtype) under bfloat16)",
            fill_diffusers_timestep),
      entry("cpu/bfl-rope/f32>f32", "multi-axis RoPE", Dtype::kFloat32, Dtype::kFloat32,
            "BFL Flux rope (src/flux/math.py) in float32", fill_bfl_axes),
      entry("cpu/float64/f64>f32", "", Dtype::kFloat64, Dtype::kFloat32,
            "float64 throughout, cast once (Wan2.1 sinusoidal_embedding_1d; diffusers' float64 "
            "RoPE frequencies)",
            fill_float64),
      entry("cpu/float64/f64>bf16", "", Dtype::kFloat64, Dtype::kBFloat16,
            "the same cast once to bfloat16", fill_float64),
  };
}

}  // namespace pev::core
