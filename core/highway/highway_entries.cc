// The Highway entries: the PyTorch (logspace) formula in float32 with Highway's contrib/math Exp,
// Sin and Cos, on the best target this CPU runs. Highway's contrib/math has no Pow, so there is no
// pow entry here (the SLEEF and glibc modules have one). Rotary recipes in float32 as Hugging Face
// computes them (core/recipe.h), once per fill, in scalar float arithmetic.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peverify/core/highway/highway_entries.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Re-included once per target, after foreach_target.h.
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace pev::core::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// out[i] = Exp(in[i]) (1 ulp); n is a multiple of every target's lane count (see kPad).
void ExpRow(const float* HWY_RESTRICT in, float* HWY_RESTRICT out, size_t n) {
  const hn::ScalableTag<float> d;
  for (size_t i = 0; i < n; i += hn::Lanes(d)) {
    hn::StoreU(hn::Exp(d, hn::LoadU(d, in + i)), d, out + i);
  }
}

// a = pos * w[i] rounded to float; Sin and Cos (3 ulp for |a| <= 39000).
void SinCosRow(float pos, const float* HWY_RESTRICT w, float* HWY_RESTRICT sin,
               float* HWY_RESTRICT cos, size_t n) {
  const hn::ScalableTag<float> d;
  const auto p = hn::Set(d, pos);
  for (size_t i = 0; i < n; i += hn::Lanes(d)) {
    const auto a = hn::Mul(p, hn::LoadU(d, w + i));
    hn::StoreU(hn::Sin(d, a), d, sin + i);
    hn::StoreU(hn::Cos(d, a), d, cos + i);
  }
}

int64_t Target() { return HWY_TARGET; }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::core::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "peverify/core/glibc/compute_type.h"
#include "peverify/core/highway/highway_dispatch.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry_modules.h"
#include "peverify/core/row_writer.h"

namespace pev::core {

HWY_EXPORT(ExpRow);
HWY_EXPORT(SinCosRow);
HWY_EXPORT(Target);

std::string_view highway_target() { return hwy::TargetName(HWY_DYNAMIC_DISPATCH(Target)()); }

void highway_sincos_row(float pos, const float* w, float* sin, float* cos, size_t n) {
  HWY_DYNAMIC_DISPATCH(SinCosRow)(pos, w, sin, cos, n);
}

namespace {

// Padding lanes compute exp(0) and sin/cos(pos) that nobody reads.
constexpr size_t kPad = kHighwayPad;

// The claim's C, from the same analysis as the SLEEF logspace entries (core/sleef/
// sleef_entries.cc): the angle is within (2 ln b + 4) u a (Exp is 1 ulp, like expf u10), and Sin
// and Cos add 3 ulp <= 6u|result|; 2 ln(1e6) + 4 = 31.6 is within the direct C of
// encoding/claims.json (32) for bases up to the limits' max_base (apply_model_limits).
// Sin and Cos reduce the angle with a 4-part pi in float, using the quadrant q = int(|a| / pi)
// turned back into a float. Highway states 3 ulp for |a| <= 39000; beyond, the reduction error
// grows like u a, which the model's C u a term covers, while q stays exact, i.e. below 2^24. Past
// |a| = 2^24 pi the results leave [-1, 1] (measured from pos ~2^25.75 on SSE4, ~2^26.25 with FMA;
// a = pos at k = 0), so the claim stops at 2^24, where float positions stop being exact too.
constexpr uint64_t kMaxPosition = uint64_t{1} << 24;

void fill(const Implementation& self, const TableSpec& spec, uint64_t count, void* out) {
  const int half = spec.d_model / 2;
  const size_t n = (static_cast<size_t>(half) + kPad - 1) / kPad * kPad;
  std::vector<float> arg(n, 0.0f);  // padding lanes: exp(0) = 1
  std::vector<float> div(n);
  std::vector<float> sin(n);
  std::vector<float> cos(n);
  const int64_t den = frequency_exponent(spec, 0).denominator;  // d, or d/2 - 1 for t2t
  // PyTorch multiplies by the Python scalar -math.log(b) / d: a double, rounded to float.
  const auto c = static_cast<float>(-std::log(strategy_base(spec)) / static_cast<double>(den));
  for (int pair = 0; pair < half; ++pair)
    arg[pair] = static_cast<float>(-frequency_exponent(spec, pair).numerator) * c;
  HWY_DYNAMIC_DISPATCH(ExpRow)(arg.data(), div.data(), n);
  const RecipeScalars recipe = recipe_scalars(spec);
  for (int pair = 0; pair < half; ++pair)
    div[pair] = recipe_frequency(glibc::Float32(), recipe, pair, div[pair], false);
  RowWriter<float> writer(spec, self.output, self.conversion);
  for (uint64_t r = 0; r < count; ++r) {
    // The position as float, as torch.arange(n).float() holds it: exact below 2^24.
    highway_sincos_row(static_cast<float>(spec.start + r), div.data(), sin.data(), cos.data(), n);
    scale_values(glibc::Float32(), recipe, sin.data(), static_cast<size_t>(half));
    scale_values(glibc::Float32(), recipe, cos.data(), static_cast<size_t>(half));
    writer.write(sin.data(), cos.data(), out, r);
  }
}

}  // namespace

void add_highway_entries(std::vector<Implementation>& out) {
  const std::string flags = "hwy target=" + std::string(highway_target()) +
                            " (HWY_DYNAMIC_DISPATCH); MulAdd is an explicit FMA on AVX2/AVX3 "
                            "targets, mul+add on SSE4; -ffp-contract=off";
  for (Dtype o : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    Implementation e;
    e.strategy = Strategy::kLogspace;
    e.compute = Dtype::kFloat32;
    e.output = o;
    e.conversion = Conversion::kNearestEven;
    e.backend = Backend::kHighway;
    e.claim = Claim::model(e.compute);
    e.max_position = kMaxPosition;
    apply_model_limits(e);
    e.recipes = every_recipe();
    e.flags = flags;
    e.description =
        "the PyTorch code in float32: div = exp(2k * float(-ln(b)/d)), a = float(pos) * div; "
        "Highway contrib/math Exp, Sin and Cos";
    e.fill = &fill;
    out.push_back(std::move(e));
  }
}

}  // namespace pev::core

#endif  // HWY_ONCE
