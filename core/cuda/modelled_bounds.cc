#include "peverify/core/cuda/modelled_bounds.h"

#include <fmt/format.h>

#include <algorithm>

namespace pev::core::cuda {
namespace {

// name, near_abs, near_out_of_range, near_assumed_abs, far_abs, far_out_of_range, far_assumed_abs
// (see modelled_bounds.h).
// Regenerate: ctest -L cuda -R RecordedModel --output-on-failure prints the replacement lines.
constexpr RecordedModel kRecorded[] = {
    {"cuda/pow/f32>f32/accurate", 0.003586, 0, 0.003586, 0.4576, 0, 0.4576},
    {"cuda/pow/f32>f16/accurate", 0.003581, 0, 0.003581, 0.4575, 0, 0.4575},
    {"cuda/pow/f32>bf16/accurate", 0.004739, 0, 0.004739, 0.4571, 0, 0.4571},
    {"cuda/pow/f16>f16/accurate", 2, 0, 2, -1, 0, -1},
    {"cuda/pow/bf16>bf16/accurate", 2, 0, 2, 2, 0, 2},
    {"cuda/logspace/f32>f32/accurate", 0.001244, 0, 0.001244, 0.1612, 0, 0.1612},
    {"cuda/logspace/f32>f16/accurate", 0.001332, 0, 0.001332, 0.1611, 0, 0.1611},
    {"cuda/logspace/f32>bf16/accurate", 0.002833, 0, 0.002833, 0.1612, 0, 0.1612},
    {"cuda/logspace/f16>f16/accurate", 2, 0, 2, -1, 0, -1},
    {"cuda/logspace/bf16>bf16/accurate", 2, 0, 2, 2, 0, 2},
    {"cuda/recurrence/f32>f32/accurate", 0.002223, 0, 0.002223, 0.2821, 0, 0.2821},
    {"cuda/recurrence/f32>f16/accurate", 0.002269, 0, 0.002269, 0.2821, 0, 0.2821},
    {"cuda/recurrence/f32>bf16/accurate", 0.003795, 0, 0.003795, 0.282, 0, 0.282},
    {"cuda/recurrence/f16>f16/accurate", 8.112, 0, 8.112, -1, 0, -1},
    {"cuda/recurrence/bf16>bf16/accurate", 14.53, 0, 14.53, -1, 0, -1},
    {"cuda/anchored/f32>f32/accurate", 0.001247, 0, 0.001247, 0.1477, 0, 0.1477},
    {"cuda/anchored/f32>f16/accurate", 0.001281, 0, 0.001281, 0.1477, 0, 0.1477},
    {"cuda/anchored/f32>bf16/accurate", 0.002908, 0, 0.002908, 0.1479, 0, 0.1479},
    {"cuda/pow/f32>f32/fast", 8.814e-06, 0.7474, 0.002791, 0, 1, 0.3499},
    {"cuda/pow/f32>f16/fast", 0.0002499, 0.7474, 0.002794, 0, 1, 0.3499},
    {"cuda/pow/f32>bf16/fast", 0.001958, 0.7474, 0.004155, 0, 1, 0.3506},
    {"cuda/pow/f16>f16/fast", 0.003441, 0.7474, 2, -1, 0, -1},
    {"cuda/pow/bf16>bf16/fast", 0.02855, 0.7473, 2, 0, 1, 2},
    {"cuda/logspace/f32>f32/fast", 4.365e-06, 0.7474, 0.001244, 0, 1, 0.1612},
    {"cuda/logspace/f32>f16/fast", 0.0002468, 0.7474, 0.001332, 0, 1, 0.1612},
    {"cuda/logspace/f32>bf16/fast", 0.001956, 0.7474, 0.002833, 0, 1, 0.1612},
    {"cuda/logspace/f16>f16/fast", 0.009843, 0.7474, 2, -1, 0, -1},
    {"cuda/logspace/bf16>bf16/fast", 0.1228, 0.7491, 2, 0, 1, 2},
    {"cuda/recurrence/f32>f32/fast", 0.005343, 0, 0.005343, 0.8003, 0, 0.8003},
    {"cuda/recurrence/f32>f16/fast", 0.00541, 0, 0.00541, 0.8006, 0, 0.8006},
    {"cuda/recurrence/f32>bf16/fast", 0.008186, 0, 0.008186, 0.8023, 0, 0.8023},
    {"cuda/recurrence/f16>f16/fast", 8.112, 0, 8.112, -1, 0, -1},
    {"cuda/recurrence/bf16>bf16/fast", 14.53, 0, 14.53, -1, 0, -1},
    {"cuda/anchored/f32>f32/fast", 4.112e-05, 0.7436, 0.001269, 0, 1, 0.1477},
    {"cuda/anchored/f32>f16/fast", 0.0002802, 0.7436, 0.001307, 0, 1, 0.1477},
    {"cuda/anchored/f32>bf16/fast", 0.001988, 0.7436, 0.002914, 0, 1, 0.1479},
    {"cuda/precise/f64>f32/accurate", 2.98e-08, 0, 2.98e-08, 2.98e-08, 0, 2.98e-08},
    {"cuda/precise/f64>f16/accurate", 0.0002441, 0, 0.0002441, 0.0002441, 0, 0.0002441},
    {"cuda/precise/f64>bf16/accurate", 0.001953, 0, 0.001953, 0.001953, 0, 0.001953},
};

std::string number(double x) { return fmt::format("{:.2g}", x); }

std::string percent(double share) { return fmt::format("{:.0f}%", 100 * share); }

}  // namespace

const RecordedModel* recorded_model(std::string_view name) {
  for (const RecordedModel& r : kRecorded)
    if (name == r.name) return &r;
  return nullptr;
}

std::string modelled_text(const Implementation& e) {
  const RecordedModel* r = recorded_model(e.name);
  if (!r) return "modelled accuracy not recorded";
  const bool far = r->far_abs >= 0;
  const std::string near_at =
      " at pos < " + std::to_string(std::min<uint64_t>(kRecordedRows, e.max_position + 1));
  std::string s = "modelled, not measured (d=512): ";
  if (r->near_out_of_range == 0 && (!far || r->far_out_of_range == 0)) {
    s += "max abs " + number(r->near_abs) + near_at;
    if (far) s += ", " + number(r->far_abs) + " at 2^20";
    return s;
  }
  s += "unbounded (__sinf/__cosf outside [-pi, pi] for " + percent(r->near_out_of_range) +
       " of elements" + near_at;
  if (far) s += ", " + percent(r->far_out_of_range) + " at 2^20";
  s += "); max abs " + number(r->near_assumed_abs);
  if (far) s += " and " + number(r->far_assumed_abs);
  return s + " if their in-range bound held there, " + number(r->near_abs) +
         " on the documented elements";
}

}  // namespace pev::core::cuda
