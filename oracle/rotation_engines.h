// The two engines of the exact rotation (rotation.h), one (position, pair) at a time: elements
// x C - y S with C = A cos(p w_j), S = A sin(p w_j) (out_b is y' C - x' S with y' = -x_a). The
// bounds each relies on are derived in rotation_mpfr.cc and rotation_fast.cc (docs/mathematics.md
// §6.1).
#pragma once

#include <cstddef>
#include <cstdint>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/attention.h"
#include "peverify/oracle/frequencies.h"

namespace pev::oracle {

// One element: the exact value rounded once to float64 and once to the target.
struct RotatedElement {
  double exact = 0, rounded = 0;
};

// v (a double, taken as exact) rounded to nearest even in `target`, with subnormals, signed zeros
// and overflow to an infinity; an infinity unchanged, a NaN a NaN. *midpoint: whether v lies
// halfway between two neighbours of the format (then a value within one float64 rounding of v may
// round either way). Exact: the format's quantum is added and removed with a shifter (the fast
// rotation's own rounding, on one lane).
double round_double_to(double v, Dtype target, bool* midpoint = nullptr);

// The reference engine: Boost.Multiprecision's mpfr_float on a precision ladder (Ziv's strategy),
// each rung with a proven bound. Decides every element or throws std::logic_error.
class MpfrRotation {
 public:
  MpfrRotation(const TableSpec& table, Dtype target);
  // out[i] for x[i] C - y[i] S, i < count, all at (pos, pair); x, y finite.
  void rotate(uint64_t pos, int pair, const double* x, const double* y, int count,
              RotatedElement* out) const;

 private:
  Frequencies frequencies_;
  Attention attention_;
  Dtype target_;
};

// Double-doubles hi[i] + lo[i], each within bound[i] of a real, |lo| <= 2^-52 |hi| (else the
// element is not decided by the fast engine).
struct BoundedDDs {
  const double *hi = nullptr, *lo = nullptr, *bound = nullptr;
};

// The fast engine's elements x[i] C_i - y[i] S_i, C_i and S_i given by c and s at index i.
struct RotationLanes {
  const double *x = nullptr, *y = nullptr;
  BoundedDDs c, s;
};

// Where they go: the exact value rounded to float64 and to the target; decided[i] is 1 where
// element i is decided, 0 where the bound does not decide both roundings (the caller hands it to
// MpfrRotation) or an input is out of the engine's range.
struct RotationOut {
  double *exact = nullptr, *rounded = nullptr, *decided = nullptr;
};

// n elements, vectorised (Highway's dynamic dispatch; every target gives the same bits). Returns
// how many are not decided.
size_t fast_rotate_lanes(const RotationLanes& in, size_t n, Dtype target, const RotationOut& out);

}  // namespace pev::oracle
