// One production implementation of the PE table, as the registry lists it (docs/architecture.md
// §10): what it computes, how, the accuracy it claims, and the function that fills a caller's
// buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/spec.h"

namespace pev::core {

enum class Device { kCpu, kCuda };
enum class Strategy { kPow, kLogspace, kRecurrence, kAnchored, kPrecise };
enum class Backend {
  kGlibc,         // scalar libm (sin, cos, pow, exp and their f variants)
  kSleefU10,      // SLEEF vector math, 1.0-ulp functions
  kSleefU35,      // SLEEF vector math, 3.5-ulp functions (what PyTorch uses on CPU)
  kHighway,       // Highway's contrib/math, dispatched at run time
  kCudaAccurate,  // sinf, cosf, powf, expf on the device
  kCudaFast,      // __sinf, __cosf, __powf, __expf (what -use_fast_math yields)
  kTorch,         // PyTorch's CPU kernels, as a framework's code calls them (core/frameworks)
  kTorchTf32,     // ... with the angles' matmul in TF32, as a GPU with TF32 on computes it
  kTorchPolar,    // ... with torch.polar's scalar cosf/sinf (Meta's freqs_cis)
};
// How the output type is reached from the compute type.
enum class Conversion { kNearestEven, kTruncate };

std::string_view name_of(Device d);
std::string_view name_of(Strategy s);
std::string_view name_of(Backend b);

struct Implementation {
  std::string name;  // device/strategy/compute>output/backend, e.g. cpu/logspace/f32>bf16/sleef-u10
  Device device = Device::kCpu;
  Strategy strategy = Strategy::kPow;
  Dtype compute = Dtype::kFloat32;  // precision every operation is rounded to
  Dtype output = Dtype::kFloat32;   // storage type of the table
  Conversion conversion = Conversion::kNearestEven;
  Backend backend = Backend::kGlibc;
  // What every element is held to (docs/mathematics.md §3); for the model, u is that of `compute`
  // and `steps` is steps_since_direct(pos).
  Claim claim;
  uint64_t max_position = kMaxPosition;  // the claim holds for positions <= this
  // and for bases <= this: the base the strategy raises, dynamic's rescaled b' for that recipe
  // (core/recipe.h strategy_base; native float16 overflows b^(2k/d) beyond).
  double max_base = 1e300;
  // and for tables whose every frequency w_j is at least this: native float16 compute needs its
  // frequencies to be normal float16 numbers (a subnormal w_j keeps far less than u of relative
  // precision; its max_base is the same rule for plain tables, whose w_j >= 1/b). Recipes
  // divide theta_j by their factors and reach below it at bases the plain rule admits.
  double min_frequency = 0;
  uint64_t anchor_interval = 0;  // rows between directly computed rows (0: every row is direct)
  // The rotary recipes (docs/mathematics.md §12) it computes, as frameworks do (core/recipe.h): the
  // tables it is asked for and its claim covers. Every layout is written for each.
  std::vector<RopeType> recipes;
  std::string flags;        // compile flags and ISA: part of the entry's identity
  std::string description;  // one line: what real code this mirrors
  // Fills positions spec.start .. spec.start + count - 1, row-major, table_width(spec) wide.
  // `out` holds float for float32 output, the uint16 bit patterns for float16 and bfloat16.
  // Every layout is supported. Safe to call concurrently. `self` is this entry, so one function
  // can serve every compute/output/conversion combination.
  void (*fill)(const Implementation& self, const TableSpec& spec, uint64_t count,
               void* out) = nullptr;
  // False when the entry cannot run here (no GPU, CPU lacks the ISA); `unavailable_reason` says
  // why.
  bool (*available)() = nullptr;  // nullptr: always available
  std::string_view unavailable_reason;

  // Rotations applied since the last directly computed row at `pos` (for the claim's model).
  uint64_t steps_since_direct(uint64_t pos) const {
    if (strategy == Strategy::kRecurrence) return pos;
    return anchor_interval ? pos % anchor_interval : 0;
  }
};

// Where a model entry's claim holds, from its strategy and compute type (encoding/claims.json's
// `limits`, docs/mathematics.md §3.2 and docs/architecture.md §10): bases up to the one C was
// derived for, the anchored strategy's interval, the naive recurrence's positions, native float16's
// normal frequencies. Every backend's model entries take them from here, so that each limit is
// stated once.
inline void apply_model_limits(Implementation& e) {
  const ClaimConstants::Limits& limits = claim_constants().limits;
  e.max_base = limits.max_base;
  if (e.strategy == Strategy::kAnchored) e.anchor_interval = limits.anchor_interval;
  if (e.strategy == Strategy::kRecurrence)
    e.max_position = limits.recurrence_max_position[static_cast<size_t>(e.compute)];
  if (e.compute == Dtype::kFloat16) {
    e.max_position = std::min(e.max_position, limits.float16_max_position);
    e.max_base = limits.float16_max_base;
    e.min_frequency = limits.float16_min_frequency;
  }
}

}  // namespace pev::core
