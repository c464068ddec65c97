// w_k for every pair of one table, computed once in MPFR: the schedule's b^(e_k), or the rotary
// recipe's frequency (oracle/rope_frequencies.h) when the table has one.
#pragma once

#include <mpfr.h>

#include <memory>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {

class RecipeFrequencies;

class Frequencies {
 public:
  // Cached at this precision (6 limbs: a wider cache slows every product pos * w); rungs that
  // need more compute w afresh.
  static constexpr mpfr_prec_t kCachedPrecision = 384;

  // Decides the recipe's branches exactly (rope_decisions.h); throws std::invalid_argument for a
  // spec that validate() rejects.
  explicit Frequencies(const TableSpec& spec);
  ~Frequencies();

  // w_k rounded to `precision` bits into `out` (whose precision is set to it). The relative error
  // is at most 2^(log2_error_factor() - precision).
  void compute(int pair, mpfr_prec_t precision, mpfr_ptr out) const;
  // The cached w_k, relative error at most 2^(log2_error_factor() - kCachedPrecision).
  mpfr_srcptr cached(int pair) const { return cache_[pair]; }

  // c_w with |w~/w - 1| <= 2^(c_w - P) for w~ computed at P bits (see compute()).
  int log2_error_factor() const { return log2_error_factor_; }

  // Whether w_k is exactly 0 (proportional's pairs that do not rotate): its angle is 0 at every
  // position, so cos and sin are exactly 1 and 0, as at position 0.
  bool zero(int pair) const;

  // The recipe's decisions, for tests; null for a plain table.
  const RecipeFrequencies* recipe() const { return recipe_.get(); }

 private:
  TableSpec spec_;
  std::unique_ptr<const RecipeFrequencies> recipe_;
  int log2_error_factor_;
  std::vector<MpfrVar> cache_;
};

// b^(e_k) (docs/mathematics.md §1.1) at `precision` bits into `out` (precision set), relative error
// at most power_error_factor(b) 2^-precision: theta_j for the recipes, w_k for plain tables.
void raise_base(const TableSpec& spec, int pair, mpfr_prec_t precision, mpfr_ptr out);
// b^(numerator/denominator) the same way: for |numerator/denominator| <= 1 the relative error is
// at most power_error_factor(b) 2^-precision (beyond, the exponent's error grows with it).
void raise_rational(double base, int64_t numerator, int64_t denominator, mpfr_prec_t precision,
                    mpfr_ptr out);
double power_error_factor(double base);

}  // namespace pev::oracle
