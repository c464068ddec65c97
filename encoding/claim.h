// The accuracy an element is held to (docs/mathematics.md §3): one type for what a registry entry
// claims, what a user claims for a table, and what the property suite and the gate check. Its
// numbers live in encoding/claims.json.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "peverify/encoding/format.h"
#include "peverify/encoding/spec.h"

namespace pev {

// The numbers of encoding/claims.json, read once (the file is compiled in).
struct ClaimConstants {
  double direct_c;              // C of the direct strategies' model (CPU, and verify's default)
  double cuda_accurate_c;       // C of the CUDA entries with sinf/cosf/expf/powf
  double cuda_fast_c;           // C of the CUDA entries with __sinf/__cosf/__expf/__powf
  double nearest_output_ulps;   // the output rounding's share when it rounds to nearest
  double truncate_output_ulps;  // ... and when it truncates
  // A multiplicative recurrence over pairs (ggml's theta_{j+1} = theta_j theta_scale): the u's
  // pair j's angle carries per step, j steps (docs/mathematics.md §3.2).
  double pair_recurrence_ulps;
  double strict_ulps;          // strict: at most this many ulps ...
  double strict_slack_ulps;    // ... plus the exact value's own rounding to double
  double faithful_below_ulps;  // faithful: strictly below this many ulps
  // A budget at or above these (absolute) checks nothing useful: every value in [-1, 1] is
  // within 1 of the truth, and 0.1 is a tenth of the whole range.
  std::array<double, 2> vacuous_budget;
  // The consistency rule (docs/mathematics.md §4.1): an element's error against the second largest
  // of the other errors in its window of rows, in its column.
  struct Consistency {
    int group_rows;        // rows per group
    int groups_each_side;  // the window: the element's group and this many groups either side
    double factor;         // an error this many times the window's is inconsistent ...
    std::array<double, 4> resolution_ulps;  // ... if also above this many ulps (by Dtype)
  } consistency;
  // Where the registry entries' claims hold (core/implementation.h; docs/mathematics.md §3.2,
  // docs/architecture.md §10).
  struct Limits {
    double max_base;           // the model entries' largest base: C was derived up to it
    uint64_t anchor_interval;  // rows between directly computed rows (anchored, precise)
    std::array<uint64_t, 4> recurrence_max_position;  // a naive recurrence's, by compute Dtype
    double float16_max_base;        // native float16 compute: plain tables' w >= 1/b normal ...
    double float16_min_frequency;   // ... and any table's w at least the smallest normal
    uint64_t float16_max_position;  // below 65520, which rounds to Inf in float16
    uint64_t precise_max_position;  // the precise strategy is faithful below 2^24
  } limits;
};
const ClaimConstants& claim_constants();

struct Claim {
  enum class Kind { kModel, kFaithful, kStrict };
  Kind kind = Kind::kModel;
  double c = 0;              // the model's constant C
  double u = 0x1p-24;        // unit roundoff of the precision the values are computed in
  double output_ulps = 0.5;  // the output conversion's share, in ulps of the output
  // The angle of pair j carries j more roundings of this many u (a recurrence over pairs; 0: its
  // angle is computed directly). The model's angle term of pair j is then (C + this j) u a.
  double pair_step_ulps = 0;

  // The honest-implementation model:
  //   |got - exact| <= output_ulps ulp_out(exact) + c u (|exact| + angle + steps)
  static Claim model(Dtype compute, double c, double output_ulps);
  static Claim model(Dtype compute);  // the direct strategies' C, rounding to nearest
  // float32's model with ggml's recurrence of the angle over pairs (`--compute ggml`).
  static Claim ggml();
  static Claim faithful();
  static Claim strict();

  // The largest |got - exact| allowed for one element: `angle` is pos * w_k, `steps` the
  // rotations made since the last directly computed row (0 for direct computations).
  double allowed(double exact, double angle, double steps, Dtype output) const {
    switch (kind) {
      case Kind::kModel:
        return output_ulps * ulp_of(exact, output) +
               c * u * (std::fabs(exact) + std::fabs(angle) + steps);
      case Kind::kFaithful:  // strictly below one ulp: the largest double below it
        return std::nextafter(claim_constants().faithful_below_ulps * ulp_of(exact, output), 0.0);
      case Kind::kStrict:
        return ulp_of(exact, output) *
               (claim_constants().strict_ulps + claim_constants().strict_slack_ulps);
    }
    return 0;
  }

  // "model(C=32, u=2^-24)", "model(C=32, u=2^-24, 1 ulp for the output)", "faithful", "strict".
  std::string describe() const;
};

// "model", "faithful" and "strict", as the command line spells them.
std::string_view name_of(Claim::Kind kind);

}  // namespace pev
