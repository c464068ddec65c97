// The frequencies of a rotary recipe (docs/mathematics.md §12.1), exactly: each branch decided
// exactly (rope_decisions.h), then w_j at any precision with a proven relative error bound. The
// formulas are Hugging Face's as real numbers; a config's numbers are the doubles they parse to.
#pragma once

#include <mpfr.h>

#include <optional>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/rope_decisions.h"

namespace pev::oracle {

class RecipeFrequencies {
 public:
  // spec has a recipe (not kDefault) and passes validate().
  explicit RecipeFrequencies(const TableSpec& spec);

  // w_j rounded to `precision` bits into `out` (precision set), relative error at most
  // 2^(log2_error_factor() - precision).
  void compute(int pair, mpfr_prec_t precision, mpfr_ptr out) const;
  int log2_error_factor() const { return log2_error_factor_; }
  // Whether w_j is exactly 0 (its angle is 0 at every position: cos 1, sin 0).
  bool zero(int pair) const { return forms_[pair].form == Form::kZero; }

  // The decisions, for tests and reports.
  const std::optional<YarnRamp>& yarn() const { return yarn_; }
  const std::vector<Llama3Band>& llama3_bands() const { return bands_; }

 private:
  enum class Form {
    kTheta,        // theta_j
    kThetaOver,    // theta_j / divisor (linear's s, llama3's low band, longrope's factor)
    kDynamic,      // theta_j q^(-2j/(d-2)), q = (L + s (N - L)) / L
    kRamp,         // yarn's fractional ramp: theta_j ((j - low) + s (high - j)) / (s (high - low))
    kLlama3Blend,  // theta_j ((h - x_j) + s (x_j - l)) / (s (h - l))
    kZero,         // proportional's pairs that do not rotate: exactly 0
  };
  struct PairForm {
    Form form = Form::kTheta;
    double divisor = 1;
  };

  // The first-order relative error of compute() for one pair, in units of 2^-P.
  double error_count(const PairForm& f) const;
  void ramp_coefficient(int pair, mpfr_prec_t p, mpfr_ptr out) const;
  void blend_coefficient(mpfr_srcptr theta, mpfr_prec_t p, mpfr_ptr out) const;

  TableSpec spec_;
  std::vector<PairForm> forms_;
  std::optional<YarnRamp> yarn_;
  std::vector<Llama3Band> bands_;
  uint64_t dynamic_excess_ = 0;  // N - L, N = max(n, L); 0: the base is unchanged
  double dynamic_log_q_ = 0;     // >= ln q
  int log2_error_factor_ = 0;
};

}  // namespace pev::oracle
