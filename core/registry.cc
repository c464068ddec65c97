#include "peverify/core/registry.h"

#include <cstdio>

#include "peverify/core/registry_modules.h"

namespace pev::core {

std::string_view name_of(Device d) { return d == Device::kCuda ? "cuda" : "cpu"; }

std::string_view name_of(Strategy s) {
  switch (s) {
    case Strategy::kPow:
      return "pow";
    case Strategy::kLogspace:
      return "logspace";
    case Strategy::kRecurrence:
      return "recurrence";
    case Strategy::kAnchored:
      return "anchored";
    case Strategy::kPrecise:
      return "precise";
  }
  return "?";
}

std::string_view name_of(Backend b) {
  switch (b) {
    case Backend::kGlibc:
      return "glibc";
    case Backend::kSleefU10:
      return "sleef-u10";
    case Backend::kSleefU35:
      return "sleef-u35";
    case Backend::kHighway:
      return "hwy";
    case Backend::kCudaAccurate:
      return "accurate";
    case Backend::kCudaFast:
      return "fast";
    case Backend::kTorch:
      return "torch";
    case Backend::kTorchTf32:
      return "torch-tf32";
    case Backend::kTorchPolar:
      return "torch-polar";
  }
  return "?";
}

std::string_view short_name(Dtype t) {
  switch (t) {
    case Dtype::kFloat64:
      return "f64";
    case Dtype::kFloat32:
      return "f32";
    case Dtype::kFloat16:
      return "f16";
    case Dtype::kBFloat16:
      return "bf16";
  }
  return "?";
}

std::string entry_name(const Implementation& e) {
  std::string out(short_name(e.output));
  if (e.conversion == Conversion::kTruncate) out += "t";
  return std::string(name_of(e.device)) + "/" + std::string(name_of(e.strategy)) + "/" +
         std::string(short_name(e.compute)) + ">" + out + "/" + std::string(name_of(e.backend));
}

const std::vector<Implementation>& registry() {
  static const std::vector<Implementation> entries = [] {
    std::vector<Implementation> v;
    add_glibc_entries(v);
    add_sleef_entries(v);
    add_highway_entries(v);
    add_precise_entries(v);
    add_framework_entries(v);
    add_cuda_entries(v);
    for (Implementation& e : v) e.name = entry_name(e);
    return v;
  }();
  return entries;
}

const Implementation* find_implementation(std::string_view name) {
  for (const Implementation& e : registry())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace pev::core
