// The host device-model of the CUDA entries: modelled accuracy, not measured. Each CUDA strategy
// is evaluated on the host by its twin (the shared arithmetic of shared_arith.h, rounding exactly
// as the device does), with every device math function replaced by the exact result pushed to the
// edge of its documented error bound (CUDA Programming Guide, "Mathematical Functions"):
//   sinf, cosf, sincosf: 2 ulp;  expf: 2 ulp;  powf: 4 ulp;  x / y: correctly rounded;
//   __sinf: 2^-21.41, __cosf: 2^-21.19 absolute for x in [-pi, pi], not bounded beyond;
//   __expf: 2 + floor(|1.173 x|) ulp;  __powf(x, y) = exp2f(y * __log2f(x)), exp2f 2 ulp and
//   __log2f 2^-22 absolute on [0.5, 2], 2 ulp elsewhere;  __fdividef: 2 ulp for |y| in
//   [2^-126, 2^126]. Special values are exact, as documented: sin 0 = 0, cos 0 = 1, exp 0 = 1,
//   pow(x, 0) = 1, and 0 / y = 0 (__fdividef is x * (1/y)).
// Values that reach the table are pushed away from the exact value (the caller passes it); the
// per-pair constants (frequencies, sin w and cos w of the rotation, the anchors' sin and cos) and
// the fast division are pushed by every combination of signs, which covers, to first order in
// the perturbations, the worst case of every element. The precise strategy calls no math
// function: its twin gives the device's bits.
//
// Nothing here needs a GPU or the CUDA toolkit: it is plain C++, built with or without CUDA.
#pragma once

#include <cstdint>
#include <vector>

#include "peverify/core/generate.h"
#include "peverify/core/implementation.h"
#include "peverify/encoding/spec.h"

namespace pev::core::cuda {

// The documented bounds the model uses (CUDA Programming Guide, tables of maximum ulp error).
struct DocumentedBounds {
  static constexpr double kSinfUlps = 2;  // sinf, cosf, sincosf
  static constexpr double kExpfUlps = 2;
  static constexpr double kPowfUlps = 4;
  static constexpr double kExp2fUlps = 2;     // exp2f, inside __powf
  static constexpr double kLog2fUlps = 2;     // __log2f outside [0.5, 2]
  static constexpr double kFdividefUlps = 2;  // __fdividef
  static double fast_sin_abs();               // __sinf on [-pi, pi]: 2^-21.41
  static double fast_cos_abs();               // __cosf on [-pi, pi]: 2^-21.19
  static double fast_log2_abs();              // __log2f on [0.5, 2]: 2^-22
  static double fast_exp_ulps(double x);      // __expf: 2 + floor(|1.173 x|)
};

// The float farthest from y on side `sign` (+1: above) with |F - y| <= bound: where the model
// puts a device function's result. A float always exists there for the bounds above (>= 2 ulp).
float bound_edge(double y, double bound, int sign);

// One way of pushing the device functions to their bounds: +1 or -1 per kind of call.
struct Perturbation {
  bool none = false;   // every device function correctly rounded instead: the twin alone
  int frequency = +1;  // exponent, pow/exp of the frequencies (each pushes w or b^(2k/d) up)
  int angle = +1;      // __fdividef of pos / b^(2k/d) (fast pow)
  int step_sin = +1, step_cos = +1;      // sin w, cos w of the rotation M_1
  int anchor_sin = +1, anchor_cos = +1;  // the directly computed rows the rotations start from
};

// The sign combinations modelled_error tries for `impl`: 1 for precise, 2 for pow and logspace
// (4 for fast pow), 8 for the recurrence (its anchor, position 0, is exact), 32 for anchored.
std::vector<Perturbation> perturbations(const Implementation& impl);

// The worst element of the model against the exact values.
struct ModelledError {
  double max_abs = 0;  // over the elements every device function of which had a documented bound
  double max_ulp = 0;  // in ulps of the output at the exact value (ulp clamped at the smallest
                       // subnormal)
  uint64_t pos = 0;    // where max_abs is
  int column = 0;
  double got = 0, exact = 0;
  uint64_t elements = 0;
  // Elements that depend on __sinf / __cosf outside [-pi, pi], where the documentation gives no
  // bound: not in max_abs.
  uint64_t out_of_range = 0;
  // Over every element, taking the in-range bounds of __sinf / __cosf to hold beyond [-pi, pi]
  // too: an assumption, not documented (equal to max_abs when nothing is out of range).
  double assumed_max_abs = 0;
  bool bounded() const { return out_of_range == 0; }
};

// True for the entries this models (device kCuda).
bool has_device_model(const Implementation& impl);

// Worst case over perturbations(impl) of rows spec.start .. spec.start + count - 1, against
// `exact` (the oracle's exact values in spec's layout, count x table_width(spec)).
ModelledError modelled_error(const Implementation& impl, const TableSpec& spec, uint64_t count,
                             const std::vector<double>& exact);

// Whether a fast entry evaluates __sinf / __cosf outside [-pi, pi] for these rows (pow and
// logspace do from position 4 on, anchored from its first anchor past 0; the recurrence only
// takes sin w, cos w with w <= 1). False for accurate and precise entries.
bool fast_argument_out_of_range(const Implementation& impl, const TableSpec& spec, uint64_t count);

// The model's table for one perturbation, in the entry's output type, with the elements whose
// arguments left the documented range marked. `exact` (nullable) gives the direction that pushes
// stored values away from the exact ones; without it they are pushed up.
struct ModelTable {
  GeneratedTable table;
  std::vector<uint8_t> out_of_range;  // one per element
};
ModelTable model_table(const Implementation& impl, const TableSpec& spec, uint64_t count,
                       const Perturbation& p, const double* exact);

}  // namespace pev::core::cuda
