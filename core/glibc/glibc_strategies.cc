// The scalar strategies, computed the way the seeds' numpy and PyTorch code computes them, in
// any compute type, with glibc's libm; rotary recipes as Hugging Face computes them, in the same
// compute type (core/recipe.h).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "peverify/core/glibc/compute_type.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry_modules.h"
#include "peverify/core/row_writer.h"

namespace pev::core::glibc {
namespace {

// The exponent's denominator: d (paper: 2k/d) or d/2 - 1 (t2t: k/(d/2-1)).
template <class A>
typename A::T exponent_of(const TableSpec& spec, int k) {
  const FrequencyExponent e = frequency_exponent(spec, k);
  return A::div(A::from_double(static_cast<double>(-e.numerator)),
                A::from_double(static_cast<double>(e.denominator)));
}

// pow (the first seed's numpy code): angle = pos / b^(2k/d). Returns the denominators.
template <class A>
std::vector<typename A::T> pow_denominators(const TableSpec& spec) {
  std::vector<typename A::T> den(spec.d_model / 2);
  for (int k = 0; k < spec.d_model / 2; ++k)
    den[k] = A::pow(A::from_double(strategy_base(spec)), exponent_of<A>(spec, k));
  return den;
}

// logspace (the PyTorch code): w_k = exp(2k * (-ln b / d)), the scalar -ln b / d computed in
// double (a Python float) and rounded to the compute type when it meets the tensor.
template <class A>
std::vector<typename A::T> logspace_frequencies(const TableSpec& spec) {
  const FrequencyExponent e1 = frequency_exponent(spec, 1);  // -2/d or -1/(d/2-1)
  const double step = -std::log(strategy_base(spec)) / static_cast<double>(e1.denominator);
  const typename A::T c = A::from_double(step);
  std::vector<typename A::T> w(spec.d_model / 2);
  for (int k = 0; k < spec.d_model / 2; ++k)
    w[k] = A::exp(
        A::mul(A::from_double(static_cast<double>(-frequency_exponent(spec, k).numerator)), c));
  return w;
}

template <class A>
void fill_direct(const Implementation& self, const TableSpec& spec, uint64_t count, void* out) {
  using T = typename A::T;
  const int half = spec.d_model / 2;
  const bool is_pow = self.strategy == Strategy::kPow;
  const RecipeScalars recipe = recipe_scalars(spec);
  std::vector<T> f = is_pow ? pow_denominators<A>(spec) : logspace_frequencies<A>(spec);
  const bool divide = apply_recipe(A(), recipe, is_pow, f);
  std::vector<T> s(half), c(half);
  RowWriter<T> writer(spec, self.output, self.conversion);
  for (uint64_t r = 0; r < count; ++r) {
    const T p = A::from_position(spec.start + r);
    for (int k = 0; k < half; ++k) {
      const T a = divide ? A::div(p, f[k]) : A::mul(p, f[k]);
      s[k] = A::sin(a);
      c[k] = A::cos(a);
    }
    scale_values(A(), recipe, s.data(), s.size());
    scale_values(A(), recipe, c.data(), c.size());
    writer.write(s.data(), c.data(), out, r);
  }
}

// One step of the rotation M_1: (sin, cos)(a + w) from (sin, cos)(a), in the compute type.
template <class A>
void rotate(std::vector<typename A::T>& s, std::vector<typename A::T>& c,
            const std::vector<typename A::T>& s1, const std::vector<typename A::T>& c1) {
  for (size_t k = 0; k < s.size(); ++k) {
    const auto ns = A::add(A::mul(s[k], c1[k]), A::mul(c[k], s1[k]));
    const auto nc = A::sub(A::mul(c[k], c1[k]), A::mul(s[k], s1[k]));
    s[k] = ns;
    c[k] = nc;
  }
}

// recurrence: PE_0 = (0, 1) rotated by M_1 once per position. Row p costs p steps whatever the
// start, so that a row's value does not depend on how the table was split.
// anchored: the same, restarted from a directly computed row at every multiple of B.
// With a recipe, the rotation is by the recipe's w, and each written row is scaled by A.
template <class A>
void fill_rotation(const Implementation& self, const TableSpec& spec, uint64_t count, void* out) {
  using T = typename A::T;
  const int half = spec.d_model / 2;
  const RecipeScalars recipe = recipe_scalars(spec);
  std::vector<T> w = logspace_frequencies<A>(spec);
  apply_recipe(A(), recipe, false, w);
  std::vector<T> s1(half), c1(half), s(half), c(half), scaled_s, scaled_c;
  for (int k = 0; k < half; ++k) {
    s1[k] = A::sin(w[k]);
    c1[k] = A::cos(w[k]);
  }
  const uint64_t interval = self.anchor_interval;
  const auto direct = [&](uint64_t pos) {
    const T p = A::from_position(pos);
    for (int k = 0; k < half; ++k) {
      s[k] = A::sin(A::mul(p, w[k]));
      c[k] = A::cos(A::mul(p, w[k]));
    }
  };
  uint64_t pos = interval ? spec.start - spec.start % interval : 0;
  direct(pos);
  RowWriter<T> writer(spec, self.output, self.conversion);
  for (; pos < spec.start + count; ++pos) {
    if (interval && pos % interval == 0) direct(pos);
    if (pos >= spec.start) {
      if (scales_values(recipe)) {
        scaled_s = s;
        scaled_c = c;
        scale_values(A(), recipe, scaled_s.data(), scaled_s.size());
        scale_values(A(), recipe, scaled_c.data(), scaled_c.size());
        writer.write(scaled_s.data(), scaled_c.data(), out, pos - spec.start);
      } else {
        writer.write(s.data(), c.data(), out, pos - spec.start);
      }
    }
    rotate<A>(s, c, s1, c1);
  }
}

template <class A>
void fill(const Implementation& self, const TableSpec& spec, uint64_t count, void* out) {
  if (self.strategy == Strategy::kPow || self.strategy == Strategy::kLogspace)
    fill_direct<A>(self, spec, count, out);
  else
    fill_rotation<A>(self, spec, count, out);
}

using FillFn = void (*)(const Implementation&, const TableSpec&, uint64_t, void*);

FillFn fill_for(Dtype compute) {
  switch (compute) {
    case Dtype::kFloat64:
      return fill<Float64>;
    case Dtype::kFloat32:
      return fill<Float32>;
    case Dtype::kFloat16:
      return fill<Float16>;
    case Dtype::kBFloat16:
      return fill<BFloat16>;
  }
  return nullptr;
}

// The honest-implementation model's constant (docs/mathematics.md §3.2), from the error analysis of
// the direct strategies in compute precision u: rounding the exponent (or -ln b / d) costs u, which
// exp or pow amplify by |x| <= ln b (13.9 for b = 10^6) on each side of the product k * c, the
// product pos * w or the quotient pos / b^e another u, and sin/cos (< 1 ulp) at most 2u |exact|: 2
// ln(10^6) + 4 < 32, the direct C of encoding/claims.json. The rotations add about 2u per step,
// inside the same C via `steps`. Where it holds is claims.json's `limits` (apply_model_limits).

// One glibc entry: the strategy, compute and output types and conversion, and the code it stands
// for ("{interval}": the anchored strategy's, as claims.json sets it).
struct Combination {
  Strategy strategy;
  Dtype compute, output;
  Conversion conversion;
  const char* description;
};

// Every glibc entry, a row each.
constexpr Combination kCombinations[] = {
    // pow: the first seed's numpy code, the nested loop with math.sin, and create_pos_enc.
    {Strategy::kPow, Dtype::kFloat64, Dtype::kFloat32, Conversion::kNearestEven,
     "numpy: pos / np.power(10000, 2*(i//2)/d) in float64 (seed get_position_angle_vec, the "
     "math.sin loop, create_pos_enc), stored as float32"},
    {Strategy::kPow, Dtype::kFloat64, Dtype::kFloat16, Conversion::kNearestEven,
     "numpy float64 pow, cast to float16 once"},
    {Strategy::kPow, Dtype::kFloat64, Dtype::kBFloat16, Conversion::kNearestEven,
     "numpy float64 pow, cast to bfloat16 once"},
    {Strategy::kPow, Dtype::kFloat32, Dtype::kFloat32, Conversion::kNearestEven,
     "pos / powf(b, 2k/d) in float32"},
    {Strategy::kPow, Dtype::kFloat32, Dtype::kFloat16, Conversion::kNearestEven,
     "float32 pow, .half()"},
    {Strategy::kPow, Dtype::kFloat32, Dtype::kBFloat16, Conversion::kNearestEven,
     "float32 pow, .bfloat16()"},
    {Strategy::kPow, Dtype::kFloat16, Dtype::kFloat16, Conversion::kNearestEven,
     "the whole computation in float16 (torch.pow on half tensors)"},
    {Strategy::kPow, Dtype::kBFloat16, Dtype::kBFloat16, Conversion::kNearestEven,
     "the whole computation in bfloat16"},
    // logspace: the PyTorch PositionalEncoding and the seeds' vectorised div_term.
    {Strategy::kLogspace, Dtype::kFloat64, Dtype::kFloat32, Conversion::kNearestEven,
     "numpy: np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d)) in float64 (seed div_term), "
     "stored as float32"},
    {Strategy::kLogspace, Dtype::kFloat64, Dtype::kFloat16, Conversion::kNearestEven,
     "numpy float64 div_term, cast to float16 once"},
    {Strategy::kLogspace, Dtype::kFloat64, Dtype::kBFloat16, Conversion::kNearestEven,
     "numpy float64 div_term, cast to bfloat16 once"},
    {Strategy::kLogspace, Dtype::kFloat32, Dtype::kFloat32, Conversion::kNearestEven,
     "PyTorch PositionalEncoding in float32, scalar libm (the seeds' class)"},
    {Strategy::kLogspace, Dtype::kFloat32, Dtype::kFloat16, Conversion::kNearestEven,
     "PyTorch float32 table, then .half()"},
    {Strategy::kLogspace, Dtype::kFloat32, Dtype::kBFloat16, Conversion::kNearestEven,
     "PyTorch float32 table, then .bfloat16()"},
    {Strategy::kLogspace, Dtype::kFloat32, Dtype::kBFloat16, Conversion::kTruncate,
     "float32 table, bfloat16 by dropping the low 16 bits (as Highway 1.0.3 and many kernels "
     "do)"},
    {Strategy::kLogspace, Dtype::kFloat16, Dtype::kFloat16, Conversion::kNearestEven,
     "PositionalEncoding built with half tensors: positions, div_term and angles in float16"},
    {Strategy::kLogspace, Dtype::kBFloat16, Dtype::kBFloat16, Conversion::kNearestEven,
     "PositionalEncoding built with bfloat16 tensors"},
    // recurrence: rotation by M_1 from the previous row (the seeds' M_k identity, naively).
    {Strategy::kRecurrence, Dtype::kFloat64, Dtype::kFloat32, Conversion::kNearestEven,
     "PE_{p+1} = M_1 PE_p in float64 from PE_0"},
    {Strategy::kRecurrence, Dtype::kFloat32, Dtype::kFloat32, Conversion::kNearestEven,
     "PE_{p+1} = M_1 PE_p in float32 from PE_0"},
    {Strategy::kRecurrence, Dtype::kFloat32, Dtype::kFloat16, Conversion::kNearestEven,
     "float32 recurrence, .half()"},
    {Strategy::kRecurrence, Dtype::kFloat32, Dtype::kBFloat16, Conversion::kNearestEven,
     "float32 recurrence, .bfloat16()"},
    {Strategy::kRecurrence, Dtype::kFloat16, Dtype::kFloat16, Conversion::kNearestEven,
     "the recurrence in float16"},
    {Strategy::kRecurrence, Dtype::kBFloat16, Dtype::kBFloat16, Conversion::kNearestEven,
     "the recurrence in bfloat16"},
    // anchored: the recurrence restarted from a direct row every B positions (compute_pe,
    // linear_trans_pe: a directly computed PE rotated by M_k).
    {Strategy::kAnchored, Dtype::kFloat64, Dtype::kFloat32, Conversion::kNearestEven,
     "direct float64 row {interval}, M_1 rotations between (seed compute_pe / linear_trans_pe "
     "rotate a direct row by M_k)"},
    {Strategy::kAnchored, Dtype::kFloat64, Dtype::kFloat16, Conversion::kNearestEven,
     "anchored float64, cast to float16 once"},
    {Strategy::kAnchored, Dtype::kFloat64, Dtype::kBFloat16, Conversion::kNearestEven,
     "anchored float64, cast to bfloat16 once"},
    {Strategy::kAnchored, Dtype::kFloat32, Dtype::kFloat32, Conversion::kNearestEven,
     "direct float32 row {interval}, float32 M_1 rotations between"},
    {Strategy::kAnchored, Dtype::kFloat32, Dtype::kFloat16, Conversion::kNearestEven,
     "anchored float32, .half()"},
    {Strategy::kAnchored, Dtype::kFloat32, Dtype::kBFloat16, Conversion::kNearestEven,
     "anchored float32, .bfloat16()"},
};

std::string description_of(const Combination& c) {
  std::string d = c.description;
  const std::string token = "{interval}";
  if (const size_t at = d.find(token); at != std::string::npos)
    d.replace(at, token.size(),
              "every " + std::to_string(claim_constants().limits.anchor_interval) + " positions");
  return d;
}

}  // namespace
}  // namespace pev::core::glibc

namespace pev::core {

void add_glibc_entries(std::vector<Implementation>& out) {
  for (const glibc::Combination& c : glibc::kCombinations) {
    Implementation e;
    e.strategy = c.strategy;
    e.compute = c.compute;
    e.output = c.output;
    e.conversion = c.conversion;
    e.backend = Backend::kGlibc;
    e.claim =
        Claim::model(c.compute, claim_constants().direct_c,
                     c.conversion == Conversion::kTruncate ? claim_constants().truncate_output_ulps
                                                           : claim_constants().nearest_output_ulps);
    e.description = glibc::description_of(c);
    e.recipes = every_recipe();
    e.flags = "-O3 -ffp-contract=off, scalar libm";
    e.fill = glibc::fill_for(c.compute);
    apply_model_limits(e);
    out.push_back(e);
  }
}

}  // namespace pev::core
