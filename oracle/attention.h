// The attention factor A of a rotary recipe (docs/mathematics.md §12.1) in MPFR: exactly where it
// is a known number (1, a configured attention_factor, longrope's rare rational value), else with a
// proven relative error bound. Every value of a recipe table is A sin or A cos, rounded once.
#pragma once

#include <mpfr.h>

#include <optional>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {

class Attention {
 public:
  static constexpr mpfr_prec_t kCachedPrecision = 384;

  // Throws std::invalid_argument for a spec that validate() rejects.
  explicit Attention(const TableSpec& spec);

  // A is exactly 1: the table's values are sin and cos themselves.
  bool is_one() const { return exact_ && *exact_ == 1.0; }
  // A when it is exactly a double (1 included).
  std::optional<double> exact() const { return exact_; }

  // A rounded to `precision` bits into `out` (precision set): |out/A - 1| <=
  // 2^(log2_error_factor() - precision), and out = A when exact().
  void compute(mpfr_prec_t precision, mpfr_ptr out) const;
  // Relative error at most 2^-kCachedPrecision.
  mpfr_srcptr cached() const { return cache_; }
  int log2_error_factor() const { return log2_error_factor_; }

  // A itself (the cos of position 0) rounded once to `target`.
  double rounded(Dtype target) const;

 private:
  TableSpec spec_;
  std::optional<double> exact_;
  // yarn's mscale ratio g(s, m1) / g(s, m2), or g(s, 1) when m2 is unset; longrope's formula.
  double mscale_ = 1;
  std::optional<double> mscale_all_dim_;
  double error_factor_ = 0;  // relative error of compute() in units of 2^-P, first order
  int log2_error_factor_ = 0;
  MpfrVar cache_;
};

// longrope's A = sqrt(1 + ln t / ln L0) when it is a dyadic rational (a number with a finite
// binary expansion, which a rounding test could meet exactly), else nothing. t = L / L0 when both
// are set, else the recipe's factor; t > 1, L0 >= 2.
std::optional<double> exact_longrope_attention(const RopeScaling& r);

}  // namespace pev::oracle
