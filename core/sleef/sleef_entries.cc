// The SLEEF entries: the seeds' pow and logspace formulas in float32 with SLEEF's vector math,
// u10 and u35, on the best ISA this CPU runs (sleef_dispatch.h); rotary recipes in float32 as
// Hugging Face computes them (core/recipe.h), once per fill, in scalar float arithmetic.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "peverify/core/glibc/compute_type.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry_modules.h"
#include "peverify/core/row_writer.h"
#include "peverify/core/sleef/sleef_dispatch.h"
#include "peverify/core/sleef/sleef_kernels.h"

namespace pev::core {
namespace {

using sleef_internal::Kernels;

// The claim |got - exact| <= ulp_out(exact)/2 + C u (|exact| + a), u = 2^-24, from this analysis:
// - logspace: c = float(-ln b / d) and the argument 2k * c are rounded (2u relative), and exp
//   turns that into a relative error of 2 ln(b) u in div (|argument| <= ln b); expf u10 adds its
//   own ulp (2u), the product pos * div u, and float(pos) u beyond 2^24: the angle is within
//   (2 ln b + 4) u a of the exact one.
// - pow: the exponent 2k/d (u, |e| <= 1) becomes ln(b) u in b^e; powf u10 2u, the division u,
//   float(pos) u, float(b) at most u: (ln b + 5) u a.
// - sin and cos move by at most the angle's error, and add their own: 1 ulp <= 2u|result| (u10),
//   3.5 ulp <= 7u|result| (u35), the |exact| term.
// - a float16 or bfloat16 output rounds once more: the ulp_out/2 term.
// The direct C of encoding/claims.json (32) covers all four: 2 ln(1e6) + 4 = 31.6 < 32 and
// 7 < 32, for bases up to the limits' max_base (apply_model_limits).

size_t padded(int n) {
  return (static_cast<size_t>(n) + sleef_internal::kPad - 1) / sleef_internal::kPad *
         sleef_internal::kPad;
}

// Once per fill, d/2 values: the divisor b^(2k/d) for pow, div = exp(2k c) for logspace; with a
// recipe, its frequencies. `divide` says whether the angle is pos / value.
std::vector<float> frequencies(const Kernels& k, Strategy strategy, const TableSpec& spec,
                               const RecipeScalars& recipe, bool& divide) {
  const int half = spec.d_model / 2;
  std::vector<float> arg(padded(half));
  std::vector<float> w(arg.size());
  const int64_t den = frequency_exponent(spec, 0).denominator;  // d, or d/2 - 1 for t2t
  // PyTorch multiplies by the Python scalar -math.log(b) / d: a double, rounded to float.
  const double base = strategy_base(spec);
  const auto c = static_cast<float>(-std::log(base) / static_cast<double>(den));
  for (int pair = 0; pair < half; ++pair) {
    const auto m = static_cast<float>(-frequency_exponent(spec, pair).numerator);  // 2k (or k)
    arg[pair] = strategy == Strategy::kPow ? m / static_cast<float>(den) : m * c;
  }
  // Padding lanes repeat the last pair: SLEEF's sincosf chooses its reduction per vector, from
  // all lanes' angles, and padding must not change that choice for the real lanes.
  std::fill(arg.begin() + half, arg.end(), arg[half - 1]);
  if (strategy == Strategy::kPow)
    k.pow_u10(static_cast<float>(base), arg.data(), w.data(), w.size());
  else
    k.exp_u10(arg.data(), w.data(), w.size());
  const bool is_pow = strategy == Strategy::kPow;
  for (int pair = 0; pair < half; ++pair)
    w[pair] = recipe_frequency(glibc::Float32(), recipe, pair, w[pair], is_pow);
  std::fill(w.begin() + half, w.end(), w[half - 1]);
  divide = angle_divides(is_pow, recipe);
  return w;
}

void fill_with(const Kernels& k, const Implementation& self, const TableSpec& spec, uint64_t count,
               void* out) {
  const RecipeScalars recipe = recipe_scalars(spec);
  bool divide = false;
  const std::vector<float> w = frequencies(k, self.strategy, spec, recipe, divide);
  const int u35 = self.backend == Backend::kSleefU35 ? 1 : 0;
  const sleef_internal::SinCosFunction row = divide ? k.divide[u35] : k.times[u35];
  std::vector<float> sin(w.size());
  std::vector<float> cos(w.size());
  const size_t half = static_cast<size_t>(spec.d_model / 2);
  RowWriter<float> writer(spec, self.output, self.conversion);
  for (uint64_t r = 0; r < count; ++r) {
    // The position as float, as torch.arange(n).float() holds it: exact below 2^24.
    row(static_cast<float>(spec.start + r), w.data(), sin.data(), cos.data(), w.size());
    scale_values(glibc::Float32(), recipe, sin.data(), half);
    scale_values(glibc::Float32(), recipe, cos.data(), half);
    writer.write(sin.data(), cos.data(), out, r);
  }
}

void fill_best(const Implementation& self, const TableSpec& spec, uint64_t count, void* out) {
  fill_with(sleef_internal::best_kernels(), self, spec, count, out);
}

template <size_t kIsa>
void fill_isa(const Implementation& self, const TableSpec& spec, uint64_t count, void* out) {
  fill_with(*sleef_internal::kernels_for(sleef_isas()[kIsa]), self, spec, count, out);
}

std::string describe(Strategy s, Backend b) {
  const std::string sincos = b == Backend::kSleefU10 ? "Sleef_sincosf u10" : "Sleef_sincosf u35";
  if (s == Strategy::kPow)
    return "the first seed's numpy code in float32: a = pos / b^(2k/d), b^(2k/d) by Sleef_powf "
           "u10 (SLEEF has no u35 pow), sin and cos by " +
           sincos;
  return "the PyTorch code in float32: div = exp(2k * float(-ln(b)/d)), a = float(pos) * div; "
         "Sleef_expf u10, sin and cos by " +
         sincos;
}

}  // namespace

FillFunction sleef_fill_for_isa(std::string_view isa) {
  static constexpr FillFunction kFills[] = {&fill_isa<0>, &fill_isa<1>, &fill_isa<2>, &fill_isa<3>};
  static_assert(std::size(kFills) == 4);
  const auto isas = sleef_isas();
  for (size_t i = 0; i < isas.size(); ++i)
    if (isas[i] == isa) return sleef_isa_supported(isa) ? kFills[i] : nullptr;
  return nullptr;
}

void add_sleef_entries(std::vector<Implementation>& out) {
  const std::string flags =
      "sleef isa=" + std::string(sleef_isa()) +
      " (run-time choice of avx512f > avx2+fma > sse4 > sse2; kernel files built with -mavx512f, "
      "-mavx2 -mfma, or the baseline); SLEEF's avx512f and avx2 functions use FMA, sse4 and sse2 "
      "do not; -ffp-contract=off";
  for (Strategy s : {Strategy::kPow, Strategy::kLogspace})
    for (Backend b : {Backend::kSleefU10, Backend::kSleefU35})
      for (Dtype o : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
        Implementation e;
        e.strategy = s;
        e.compute = Dtype::kFloat32;
        e.output = o;
        e.conversion = Conversion::kNearestEven;
        e.backend = b;
        e.claim = Claim::model(e.compute);
        e.max_position = kMaxPosition;
        apply_model_limits(e);
        e.recipes = every_recipe();
        e.flags = flags;
        e.description = describe(s, b);
        e.fill = &fill_best;
        out.push_back(std::move(e));
      }
}

}  // namespace pev::core
