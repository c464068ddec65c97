#include "peverify/measure/rotation_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "peverify/encoding/format.h"

namespace pev::measure {
namespace {

TableSpec cache_spec(const RotationSpec& spec) {
  TableSpec t = spec.table;
  t.layout = Layout::kRopeCosSin;  // column j: cos of pair j, column d/2 + j: its sin
  return t;
}

double smallest_subnormal(Dtype t) {
  const FormatTraits f = traits_of(t);
  return std::ldexp(1.0, f.min_exponent - f.precision + 1);
}

}  // namespace

std::string RotationCompute::describe() const {
  return fmt::format("{}: cos and sin in {}{}, products and sum in {}{}", name, name_of(cache),
                     pair_recurrence ? " of angles by ggml's recurrence over pairs" : "",
                     name_of(products), fma ? " with an FMA" : "");
}

std::optional<RotationCompute> parse_rotation_compute(std::string_view name) {
  if (name == "float32") return RotationCompute{"float32", Dtype::kFloat32, Dtype::kFloat32};
  if (name == "float32-fma")
    return RotationCompute{"float32-fma", Dtype::kFloat32, Dtype::kFloat32, true};
  if (name == "ggml") return RotationCompute{"ggml", Dtype::kFloat32, Dtype::kFloat32, false, true};
  if (name == "bfloat16") return RotationCompute{"bfloat16", Dtype::kBFloat16, Dtype::kBFloat16};
  if (name == "float64") return RotationCompute{"float64", Dtype::kFloat64, Dtype::kFloat64};
  return std::nullopt;
}

RotationBudget::RotationBudget(const RotationSpec& spec, const RotationCompute& compute,
                               Dtype output)
    // The cache is computed as the model claim's honest float32 implementation (float64 for a
    // float64 kernel) and stored in the kernel's cache type.
    : compute_(compute),
      cache_(
          cache_spec(spec),
          compute.pair_recurrence
              ? Claim::ggml()
              : Claim::model(compute.cache == Dtype::kFloat64 ? Dtype::kFloat64 : Dtype::kFloat32),
          compute.cache),
      pairs_(spec.table.d_model / 2),
      u_p_(unit_roundoff(compute.products)),
      u_o_(unit_roundoff(output) > unit_roundoff(compute.products) ? unit_roundoff(output) : 0),
      // Each product and the sum may underflow by half a subnormal of the compute type, and the
      // output's conversion by half of its own.
      tiny_(2 * smallest_subnormal(compute.products) +
            (u_o_ > 0 ? smallest_subnormal(output) : 0)) {}

double RotationBudget::allowed(const CacheErrors& e, double own, double other, double c, double s,
                               double r) const {
  const double e_c = e.c, e_s = e.s;
  const double a = std::fabs(own) * (std::fabs(c) + e_c);
  const double b = std::fabs(other) * (std::fabs(s) + e_s);
  const double d = std::fabs(own) * e_c + std::fabs(other) * e_s;
  const double p = compute_.fma ? std::max(a, b) : a + b;
  const double bound =
      d + u_p_ * p * (1 + u_p_) + (u_p_ + u_o_) * (std::fabs(r) + d + u_p_ * p) + tiny_;
  return bound * (1 + 0x1p-40);  // this sum's own roundings in double
}

}  // namespace pev::measure
