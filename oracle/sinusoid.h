// The exact values of the sinusoidal tables beyond the Transformer's (encoding/sinusoids/,
// docs/design.md §16): sin and cos of scale * x * w for any real x a file stores, and ALiBi's
// slopes 2^(-max_bias e), each rounded once, correctly, to the target format and to double.
#pragma once

#include <mpfr.h>

#include <vector>

#include "peverify/encoding/sinusoids/alibi.h"
#include "peverify/encoding/sinusoids/table.h"
#include "peverify/encoding/spec.h"
#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {

struct SinCos {
  double sin_rounded = 0, cos_rounded = 0;  // in the target format, widened to double
  double sin_exact = 0, cos_exact = 0;      // the exact value rounded to double
};

class SinusoidOracle {
 public:
  // The table's frequencies, cached at kCachedPrecision bits.
  SinusoidOracle(const SinusoidTable& table, Dtype target);
  // sin and cos of scale * x * w_f (f an index into the table's frequencies), by MPFR with a
  // precision ladder (Ziv). Safe to call from several threads.
  SinCos evaluate(double x, int frequency) const;

 private:
  static constexpr mpfr_prec_t kCachedPrecision = 384;
  double scale_;
  Dtype target_;
  int log2_error_factor_;  // c_w: |w~/w - 1| <= 2^(c_w - P) for w~ computed at P bits
  std::vector<SinusoidFrequency> frequencies_;
  std::vector<MpfrVar> cache_;
};

// ALiBi's slope 2^(-max_bias n/d), rounded once to `target` (first) and to double (second).
std::pair<double, double> exact_alibi_slope(const AlibiSlope& s, double max_bias, Dtype target);

}  // namespace pev::oracle
