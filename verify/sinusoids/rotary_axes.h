// verify-rotary for RoPE over several position axes at real ids (docs/features.md §16.2): q or k
// before and after a Flux / HunyuanVideo / Qwen-Image style kernel, every element against the
// exact rotation of the exact inputs (oracle/sinusoid_rotation.h), rounded once; the same claims
// and model budget as verify-rotary (§15.2).
#pragma once

#include <vector>

#include "peverify/encoding/sinusoids/rope_axes.h"
#include "peverify/verify/sinusoids/declarations.h"
#include "peverify/verify/verify_rotary.h"

namespace pev::verify::sinusoids {

struct AxesRotation {
  RopeAxes axes;
  // The geometry, the pair conventions (spec.table.d_model the axes' sum), the claim, the compute
  // type and the threads, as verify-rotary resolves them (resolve_rotary).
  VerifyRotaryOptions rotary;
  // Each token's id on each axis: [axes][tokens], or [axes][seq] shared by every batch row.
  AxisPositions ids;
  std::string ids_text;  // "ids.npy: 4096 x 3 axes (float32), ..."
};

// The declaration from what the command line or Python says: ids [axes, N] or [N, axes], N the
// tokens or the sequence length (ConfigError otherwise, or where the axes' dims exceed the head).
AxesRotation axes_rotation(const RopeAxes& axes, const VerifyRotaryOptions& rotary,
                           const Numbers& ids);

SinusoidVerdict verify_rotary_axes(const RotaryTensor& input, const RotaryTensor& output,
                                   const AxesRotation& declared);

}  // namespace pev::verify::sinusoids
