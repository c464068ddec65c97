// w_k = b^(e_k) for every pair of one (d, base, schedule), computed once in MPFR.
#pragma once

#include <mpfr.h>

#include <boost/multiprecision/mpfr.hpp>
#include <vector>

#include "encoding/spec.h"

namespace pev::oracle {

class Frequencies {
 public:
  // Cached at this precision; rungs that need more compute w afresh.
  static constexpr mpfr_prec_t kCachedPrecision = 384;

  explicit Frequencies(const TableSpec& spec);

  // w_k rounded to `precision` bits into `out` (whose precision is set to it). The relative error
  // is at most 2^(log2_error_factor() - precision).
  void compute(int pair, mpfr_prec_t precision, mpfr_ptr out) const;
  // The cached w_k, relative error at most 2^(log2_error_factor() - kCachedPrecision).
  mpfr_srcptr cached(int pair) const { return cache_[pair].backend().data(); }

  // c_w with |w~/w - 1| <= 2^(c_w - P) for w~ computed at P bits (see compute()).
  int log2_error_factor() const { return log2_error_factor_; }

 private:
  TableSpec spec_;
  int log2_error_factor_;
  // Boost's front end only holds the cache (RAII for mpfr_t); arithmetic is raw MPFR.
  std::vector<boost::multiprecision::mpfr_float> cache_;
};

}  // namespace pev::oracle
