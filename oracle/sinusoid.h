// The exact values of the sinusoidal tables beyond the Transformer's (encoding/sinusoids/,
// docs/features.md §16): sin and cos of scale * x * w for any real x a file stores, and ALiBi's
// slopes 2^(-max_bias e), each rounded once, correctly, to the target format and to double.
#pragma once

#include <mpfr.h>

#include <array>
#include <vector>

#include "peverify/encoding/sinusoids/alibi.h"
#include "peverify/encoding/sinusoids/table.h"
#include "peverify/encoding/spec.h"
#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {

struct SinCos {
  // The exact value rounded once to each format (indexed by Dtype), widened to double: one
  // evaluation serves every output type a caller judges.
  std::array<double, 4> sin_rounded{}, cos_rounded{};
  double sin_exact = 0, cos_exact = 0;  // the exact value rounded to double (= [kFloat64])
  double sin_in(Dtype t) const { return sin_rounded[static_cast<size_t>(t)]; }
  double cos_in(Dtype t) const { return cos_rounded[static_cast<size_t>(t)]; }
};

class SinusoidOracle {
 public:
  // The table's frequencies, cached at kCachedPrecision bits.
  explicit SinusoidOracle(const SinusoidTable& table);
  // sin and cos of scale * x * w_f (f an index into the table's frequencies), by MPFR with a
  // precision ladder (Ziv). Safe to call from several threads.
  SinCos evaluate(double x, int frequency) const;
  // sin and cos of the angle a = scale x w_f, a != 0, at `precision` bits into s and c (their
  // precision set); returns EXP(a~). Each is within 2^(max(EXP(a~) + 2, EXP(value)) + 1 -
  // precision) of the exact value (the bound at the top of sinusoid.cc), so within
  // 2^(max(EXP(a~) + 2, 1) + 1 - precision) absolutely.
  mpfr_exp_t sin_cos_at(double x, int frequency, mpfr_prec_t precision, mpfr_ptr s,
                        mpfr_ptr c) const;

 private:
  static constexpr mpfr_prec_t kCachedPrecision = 384;
  double scale_;
  int log2_error_factor_;  // c_w: |w~/w - 1| <= 2^(c_w - P) for w~ computed at P bits
  std::vector<SinusoidFrequency> frequencies_;
  std::vector<MpfrVar> cache_;
};

// ALiBi's slope 2^(-max_bias n/d), rounded once to `target` and to double; `exact` says the double
// is the slope itself (an integer exponent: a power of two), so no other value is faithful.
struct ExactSlope {
  double rounded = 0, value = 0;
  bool exact = false;
};
ExactSlope exact_alibi_slope(const AlibiSlope& s, double max_bias, Dtype target);

}  // namespace pev::oracle
