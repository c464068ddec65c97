// The two engines of the exact rotation (rotation.h), one (position, pair) at a time: elements
// x C - y S with C = A cos(p w_j), S = A sin(p w_j) (out_b is y' C - x' S with y' = -x_a). The
// bounds each relies on are derived in rotation_mpfr.cc and rotation_fast.cc (docs/design.md §6.1).
#pragma once

#include <cstdint>
#include <optional>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/attention.h"
#include "peverify/oracle/frequencies.h"

namespace pev::oracle {

// One element: the exact value rounded once to float64 and once to the target.
struct RotatedElement {
  double exact = 0, rounded = 0;
};

// v (a double, taken as exact) rounded to nearest even in `target`, with subnormals, signed zeros
// and overflow to an infinity; non-finite v unchanged. *midpoint: whether v lies halfway between
// two neighbours of the format (then a value within one float64 rounding of v may round either
// way). Scalar and exact: the format's quantum is added and removed with a shifter.
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

// A double-double hi + lo within `bound` of a real, |lo| <= 2^-52 |hi|.
struct BoundedDD {
  double hi = 0, lo = 0, bound = 0;
};

// The fast engine on n elements of one (position, pair), every head's: x c - y s in double-double
// from C, S within their bounds; decided[i] says whether out[i] holds element i (else its bound
// does not decide both roundings and the caller hands it to MpfrRotation). One call per pair, so
// the element's code is inlined in a loop.
void fast_rotate_all(const double* x, const double* y, size_t n, const BoundedDD& c,
                     const BoundedDD& s, Dtype target, RotatedElement* out, unsigned char* decided);

}  // namespace pev::oracle
