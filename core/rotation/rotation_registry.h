// Production rotations (docs/architecture.md §10, ../shared/ROPE.md "Applying the rotation"): what
// a RoPE kernel does to q and k, one entry per way frameworks compute it. Tests, properties and
// verify-rotary iterate this list; adding a rotation is adding one entry here. Names read
// device/rotate/how/output[/backend].
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/positions.h"
#include "peverify/encoding/rotation.h"
#include "peverify/encoding/spec.h"

namespace pev::core {

struct RotationImplementation {
  std::string name;                // e.g. cpu/rotate/cache-f32/f32
  Dtype input = Dtype::kFloat32;   // q's storage type: float, double or uint16 bit patterns
  Dtype output = Dtype::kFloat32;  // the rotated q's storage type
  // The claim, as `peverify verify-rotary --compute` spells it (measure::parse_rotation_compute:
  // "float32", "float32-fma", "bfloat16", "float64"). A name, not the struct: core/ does not
  // depend on measure/; crosscheck/ parses it.
  std::string compute;
  std::vector<RopeType> recipes;  // the recipes its claim covers
  std::string flags;              // compile flags and ISA: part of the entry's identity
  std::string description;        // one line: what real code this mirrors
  // x: n tokens x heads x spec.head_dim values of `input`; token i sits at row tokens[i] of
  // `positions` (M-RoPE pairs at their stream's position). Writes the same shape of `output`
  // to out. Dims >= the rotary dimension are copied. spec passes validate(); spec.table carries
  // the sequence length recipes need. Safe to call concurrently.
  void (*apply)(const RotationImplementation& self, const RotationSpec& spec,
                const RowPositions& positions, const uint64_t* tokens, uint64_t n, int heads,
                const void* x, void* out) = nullptr;
  // Whether apply can run here (CUDA entries need a device); null: always. When it cannot,
  // callers skip the entry and say `unavailable_reason`, never count it as passed.
  bool (*available)() = nullptr;
  std::string unavailable_reason = {};
  // The entry whose output this one's must equal bit for bit ("" for none): a CUDA kernel's host
  // twin, which rounds every operation as the device does and is checked without a GPU.
  std::string host_twin = {};
  // The claim it is held to: the model of `compute`, or faithful (every output within one ulp of
  // the exact rotation, whatever the compute).
  Claim::Kind claim = Claim::Kind::kModel;
  bool runs_here() const { return !available || available(); }
};

const std::vector<RotationImplementation>& rotation_registry();
const RotationImplementation* find_rotation(std::string_view name);

}  // namespace pev::core
