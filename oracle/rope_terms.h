// The real-valued terms the rotary recipes branch on (docs/mathematics.md §12.1), each in MPFR with
// a proven error bound: yarn's correction dimension cd(beta) and llama3's L0 / wavelength. The
// decisions (rope_decisions.h) and the frequencies (rope_frequencies.h) both use them.
#pragma once

#include <mpfr.h>

#include "peverify/encoding/spec.h"

namespace pev::oracle {

// cd(beta) = d ln(L0 / (2 pi beta)) / (2 ln b) at `precision` (>= 64) bits into `out` (precision
// set). |out - cd| <= correction_dim_error(spec, M) 2^-precision for any M >= |cd|.
void correction_dim(const TableSpec& spec, double beta, mpfr_prec_t precision, mpfr_ptr out);
double correction_dim_error(const TableSpec& spec, double cd_magnitude);

// llama3's x_j = L0 theta_j / (2 pi) = L0 / wavelength_j from theta~ (theta_j with relative error
// <= k_theta 2^-P, all at P >= 64 bits): |x~/x - 1| <= (k_theta + 3) 2^-P, first order.
void llama3_ratio_of(const TableSpec& spec, mpfr_srcptr theta, mpfr_ptr out);
inline double llama3_ratio_error(double theta_error) { return theta_error + 3; }

// An upper bound on 1 / ln(b) for b > 1, in double.
double inverse_log_base_bound(double base);

}  // namespace pev::oracle
