#include "peverify/core/sinusoids/sinusoid_registry.h"

#include "peverify/core/convert.h"

namespace pev::core {

const std::vector<SinusoidImplementation>& sinusoid_registry() {
  static const std::vector<SinusoidImplementation> all = [] {
    std::vector<SinusoidImplementation> v = framework_sinusoid_entries();
    for (SinusoidImplementation& e : precise_sinusoid_entries()) v.push_back(std::move(e));
    return v;
  }();
  return all;
}

void store_value(Dtype output, size_t i, double value, void* out) {
  switch (output) {
    case Dtype::kFloat64:
      static_cast<double*>(out)[i] = value;
      return;
    case Dtype::kFloat32:
      static_cast<float*>(out)[i] = static_cast<float>(value);
      return;
    case Dtype::kFloat16:
      static_cast<uint16_t*>(out)[i] = f16_from_f64(value);
      return;
    case Dtype::kBFloat16:
      static_cast<uint16_t*>(out)[i] = bf16_from_f64(value);
      return;
  }
}

}  // namespace pev::core
