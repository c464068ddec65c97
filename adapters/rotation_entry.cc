#include "peverify/adapters/rotation_entry.h"

#include <algorithm>
#include <random>

#include "peverify/core/convert.h"

namespace pev::adapters {

std::vector<double> apply_rotation(const core::RotationImplementation& e, const RotationSpec& spec,
                                   const RowPositions& positions, const uint64_t* tokens,
                                   uint64_t n, int heads, const std::vector<double>& x) {
  std::vector<double> y(x.size());
  if (e.input == Dtype::kBFloat16) {
    std::vector<uint16_t> in(x.size()), out(x.size());
    for (size_t i = 0; i < x.size(); ++i) in[i] = core::bf16_from_f32(static_cast<float>(x[i]));
    e.apply(e, spec, positions, tokens, n, heads, in.data(), out.data());
    for (size_t i = 0; i < x.size(); ++i) y[i] = core::f32_from_bf16(out[i]);
  } else if (e.input == Dtype::kFloat64) {
    e.apply(e, spec, positions, tokens, n, heads, x.data(), y.data());
  } else {
    std::vector<float> in(x.begin(), x.end()), out(x.size());
    e.apply(e, spec, positions, tokens, n, heads, in.data(), out.data());
    y.assign(out.begin(), out.end());
  }
  return y;
}

properties::RotationUnderTest rotation_under_test(const core::RotationImplementation& e) {
  return {e.name, e.input, e.output, *measure::parse_rotation_compute(e.compute),
          [&e](const RotationSpec& spec, const RowPositions& p, const uint64_t* tokens, uint64_t n,
               int heads, const double* x, double* out) {
            const std::vector<double> in(x, x + n * heads * spec.head_dim);
            const std::vector<double> y = apply_rotation(e, spec, p, tokens, n, heads, in);
            std::copy(y.begin(), y.end(), out);
          }};
}

std::vector<double> random_q(uint64_t size, Dtype dtype, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> kind(0, 63);
  std::vector<double> x(size);
  for (double& v : x) {
    const int k = kind(rng);
    v = k == 0 ? 0.0 : normal(rng) * (k == 1 ? 1e-30 : (k % 4 + 1) * 2.0);
    const float f = static_cast<float>(v);
    v = dtype == Dtype::kBFloat16 ? core::f32_from_bf16(core::bf16_from_f32(f)) : f;
  }
  return x;
}

}  // namespace pev::adapters
