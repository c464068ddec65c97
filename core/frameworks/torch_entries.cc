// Frameworks' own arithmetic as registry entries (docs/architecture.md §10.1): the cos/sin tables
// Hugging Face transformers, vLLM, Meta's reference code and the PyTorch tutorial build, each
// operation in PyTorch's order and type, on PyTorch's CPU kernels (torch_kernels.h). The facts
// are ../shared/FRAMEWORKS.md's, with the files they were read from:
// - inv_freq (transformers modeling_rope_utils.py `_compute_default_rope_parameters`, vLLM
//   rotary_embedding/base.py `_compute_inv_freq`, Meta llama/model.py `precompute_freqs_cis`):
//   e = arange(0, d, 2).float() / d, p = base ** e (torch.pow), inv = 1.0 / p (torch's __rdiv__,
//   a reciprocal); the recipe's rescaling in the same type (core/recipe_arith.h, which follows
//   `_compute_*_parameters` operation by operation).
// - angles: fl(float(pos) * inv). LlamaRotaryEmbedding.forward's `inv_freq @ position_ids` is a
//   K = 1 GEMM, vLLM's `einsum("i,j->ij")` and Meta's `torch.outer` a multiply: the same product.
//   With TF32 on (torch.backends.cuda.matmul.allow_tf32, or set_float32_matmul_precision("high")),
//   the GEMM truncates both operands to TF32's 10 fraction bits (transformers#48428: position
//   2049 becomes 2048) and the product of two 11-bit significands is exact in float32.
// - cos and sin: tensor.cos(), .sin() (torch_kernels.h), or torch.polar's scalar cosf/sinf
//   (aten/src/ATen/native/cpu/ComplexKernel.cpp) for Meta's complex freqs_cis; then
//   `* attention_scaling` in the compute type, and `.to(dtype)`: one rounding to the output.
// - the tutorial's PositionalEncoding: div = exp(arange(0, d, 2) * (-ln(b) / d)), the Python
//   float rounded to float32 where it meets the tensor; angle fl(float(pos) * div).
// The float64 entries are the same code with dtype=torch.float64 throughout, then `.to(dtype)`,
// which reaches float16 and bfloat16 through float: what peverify recommends in PyTorch
// (reports/study/snippets.h).
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "peverify/core/frameworks/torch_kernels.h"
#include "peverify/core/glibc/compute_type.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry_modules.h"
#include "peverify/core/row_writer.h"
#include "peverify/core/sleef/sleef_dispatch.h"

namespace pev::core {
namespace torch_internal {
namespace {

void default_pow_f32(float base, const float* e, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = powf(base, e[i]);
}
void default_pow_f64(double base, const double* e, double* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = pow(base, e[i]);
}
template <class T, T (*F)(T)>
void default_map(const T* in, T* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = F(in[i]);
}

constexpr TorchKernels kDefault{"default",
                                &default_pow_f32,
                                &default_pow_f64,
                                &default_map<float, &expf>,
                                &default_map<float, &sinf>,
                                &default_map<float, &cosf>,
                                &default_map<double, &sin>,
                                &default_map<double, &cos>};

}  // namespace

const TorchKernels& torch_kernels() {
  static const TorchKernels& k = sleef_isa_supported("avx2") ? avx2_torch_kernels() : kDefault;
  return k;
}

}  // namespace torch_internal

namespace {

using torch_internal::torch_kernels;
using torch_internal::TorchKernels;

// A float32 as a TF32 tensor core reads it: the low 13 of its 23 fraction bits dropped.
float tf32_truncated(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits &= 0xFFFFE000u;
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

// The compute type's half of the kernels and arithmetic: float32 or float64 tensors.
template <class T>
struct Torch;
template <>
struct Torch<float> {
  using A = glibc::Float32;
  static void pow(const TorchKernels& k, float b, const float* e, float* o, size_t n) {
    k.pow_f32(b, e, o, n);
  }
  static void sin(const TorchKernels& k, const float* a, float* o, size_t n) { k.sin_f32(a, o, n); }
  static void cos(const TorchKernels& k, const float* a, float* o, size_t n) { k.cos_f32(a, o, n); }
};
template <>
struct Torch<double> {
  using A = glibc::Float64;
  static void pow(const TorchKernels& k, double b, const double* e, double* o, size_t n) {
    k.pow_f64(b, e, o, n);
  }
  static void sin(const TorchKernels& k, const double* a, double* o, size_t n) {
    k.sin_f64(a, o, n);
  }
  static void cos(const TorchKernels& k, const double* a, double* o, size_t n) {
    k.cos_f64(a, o, n);
  }
};

// Each pair's frequency w_j as the framework's tensor holds it.
template <class T>
std::vector<T> torch_frequencies(const TorchKernels& k, Strategy strategy, const TableSpec& spec,
                                 const RecipeScalars& recipe) {
  using A = typename Torch<T>::A;
  const int half = spec.d_model / 2;
  const double base = strategy_base(spec);
  std::vector<T> arg(half), f(half);
  if (strategy == Strategy::kPow) {
    // arange(0, d, 2).float() / d: a true division by the Python int.
    for (int j = 0; j < half; ++j) {
      const FrequencyExponent e = frequency_exponent(spec, j);
      arg[j] = A::div(A::from_double(static_cast<double>(-e.numerator)),
                      A::from_double(static_cast<double>(e.denominator)));
    }
    Torch<T>::pow(k, A::from_double(base), arg.data(), f.data(), f.size());
  } else if constexpr (std::is_same_v<T, float>) {  // the tutorial's table is float32 only
    // arange(0, d, 2) * (-math.log(b) / d): the Python float rounded to the tensor's type.
    const FrequencyExponent e1 = frequency_exponent(spec, 1);
    const T c = A::from_double(-std::log(base) / static_cast<double>(e1.denominator));
    for (int j = 0; j < half; ++j)
      arg[j] =
          A::mul(A::from_double(static_cast<double>(-frequency_exponent(spec, j).numerator)), c);
    k.exp_f32(arg.data(), f.data(), f.size());
  } else {
    throw std::logic_error("no float64 logspace framework entry");
  }
  const bool is_pow = strategy == Strategy::kPow;
  for (int j = 0; j < half; ++j) {
    // 1.0 / p for the plain table too: these frameworks multiply, never divide, by position.
    if (recipe.type == RopeType::kDefault)
      f[j] = is_pow ? A::div(A::from_double(1.0), f[j]) : f[j];
    else
      f[j] = recipe_frequency(A(), recipe, j, f[j], is_pow);
  }
  return f;
}

template <class T>
void fill_torch(const Implementation& self, const TableSpec& spec, uint64_t count, void* out) {
  using A = typename Torch<T>::A;
  const TorchKernels& k = torch_kernels();
  const RecipeScalars recipe = recipe_scalars(spec);
  const std::vector<T> w = torch_frequencies<T>(k, self.strategy, spec, recipe);
  const size_t half = w.size();
  const bool tf32 = self.backend == Backend::kTorchTf32;
  std::vector<T> w_read(w);
  if constexpr (std::is_same_v<T, float>)
    if (tf32)
      for (float& x : w_read) x = tf32_truncated(x);
  std::vector<T> angle(half), s(half), c(half);
  // `.to(dtype)` from float64 goes through float (c10::Half and c10::BFloat16 are built from a
  // float): a float64 table reaches a 16-bit type rounded twice, and PyTorch's table is that.
  std::vector<float> s32(std::is_same_v<T, float> ? 0 : half), c32(s32.size());
  RowWriter<float> writer(spec, self.output, self.conversion);
  for (uint64_t r = 0; r < count; ++r) {
    T pos = A::from_position(spec.start + r);  // position_ids.float()
    if constexpr (std::is_same_v<T, float>)
      if (tf32) pos = tf32_truncated(pos);
    for (size_t j = 0; j < half; ++j) angle[j] = A::mul(pos, w_read[j]);
    if (self.backend == Backend::kTorchPolar) {
      // torch.polar(ones, freqs): abs * cos(angle), abs * sin(angle) with scalar libm.
      for (size_t j = 0; j < half; ++j) {
        s[j] = A::sin(angle[j]);
        c[j] = A::cos(angle[j]);
      }
    } else {
      Torch<T>::sin(k, angle.data(), s.data(), half);
      Torch<T>::cos(k, angle.data(), c.data(), half);
    }
    scale_values(A(), recipe, s.data(), half);
    scale_values(A(), recipe, c.data(), half);
    if constexpr (std::is_same_v<T, float>) {
      writer.write(s.data(), c.data(), out, r);
    } else {
      for (size_t j = 0; j < half; ++j) {
        s32[j] = static_cast<float>(s[j]);
        c32[j] = static_cast<float>(c[j]);
      }
      writer.write(s32.data(), c32.data(), out, r);
    }
  }
}

struct Variant {
  Strategy strategy;
  Dtype compute;
  Backend backend;
  std::vector<Dtype> outputs;
  const char* description;
};

}  // namespace

void add_framework_entries(std::vector<Implementation>& out) {
  const std::string flags = "PyTorch's CPU kernels at capability " +
                            std::string(torch_kernels().capability) +
                            " (avx2: SLEEF u10 vectors as ATen's Vectorized; default: libm); "
                            "-ffp-contract=off";
  const Variant variants[] = {
      {Strategy::kPow,
       Dtype::kFloat32,
       Backend::kTorch,
       {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16},
       "Hugging Face's *RotaryEmbedding in float32 (inv_freq = 1.0 / base ** (arange(0, d, 2) / "
       "d), the recipe's float32 rescaling, inv_freq @ position_ids, cos/sin, * "
       "attention_scaling, .to(dtype)); vLLM's cos_sin_cache (einsum) and Meta's angles are the "
       "same operations"},
      {Strategy::kPow,
       Dtype::kFloat32,
       Backend::kTorchTf32,
       {Dtype::kFloat32, Dtype::kBFloat16},
       "Hugging Face's float32 code with TF32 on (set_float32_matmul_precision('high') on a GPU): "
       "inv_freq @ position_ids reads both operands as TF32, so positions past 2048 move "
       "(transformers#48428); cos/sin by PyTorch's CPU kernels"},
      {Strategy::kPow,
       Dtype::kFloat32,
       Backend::kTorchPolar,
       {Dtype::kFloat32},
       "Meta's precompute_freqs_cis: the same float32 angles, torch.polar(ones, freqs) with "
       "scalar cosf/sinf, complex64 (layout polar)"},
      {Strategy::kLogspace,
       Dtype::kFloat32,
       Backend::kTorch,
       {Dtype::kFloat32},
       "the PyTorch tutorial's PositionalEncoding: div_term = exp(arange(0, d, 2) * (-ln(b) / "
       "d)), sin/cos(position * div_term) in float32"},
      {Strategy::kPow,
       Dtype::kFloat64,
       Backend::kTorch,
       {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16},
       "Hugging Face's code with dtype=torch.float64 throughout (inv_freq, the recipe, the "
       "angles, cos/sin, the attention factor), then .to(dtype): through float, so a 16-bit "
       "output is rounded twice (still within one ulp)"},
  };
  for (const Variant& v : variants)
    for (Dtype o : v.outputs) {
      Implementation e;
      e.strategy = v.strategy;
      e.compute = v.compute;
      e.output = o;
      e.backend = v.backend;
      e.claim = Claim::model(e.compute);
      // TF32 keeps 10 fraction bits of the position and of inv_freq: u = 2^-11 in the angle.
      if (v.backend == Backend::kTorchTf32) e.claim.u = 0x1p-11;
      // float64 reaches a 16-bit output through float: half an ulp of float on top of half an
      // ulp of the output, at most 2^-13 of the output's ulp (float16: 13 fraction bits fewer).
      if (v.compute == Dtype::kFloat64 && o != Dtype::kFloat32)
        e.claim = Claim::model(e.compute, e.claim.c, 0.5 + 0x1p-13);
      apply_model_limits(e);
      e.recipes = every_recipe();
      e.flags = flags;
      e.description = v.description;
      e.fill = v.compute == Dtype::kFloat64 ? &fill_torch<double> : &fill_torch<float>;
      out.push_back(std::move(e));
    }
}

}  // namespace pev::core
