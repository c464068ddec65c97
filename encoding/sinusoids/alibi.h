// ALiBi slopes (docs/features.md §16.3): one slope per head, m_h = 2^(-max_bias e_h) with e_h an
// exact rational, by the authors' rule (ofirpress/attention_with_linear_biases,
// fairseq/models/transformer.py get_slopes): for n heads a power of two, e_h = (h + 1)/n;
// otherwise, with c = 2^floor(log2 n), the c slopes of c heads, then every other slope of 2c heads,
// e = (2k + 1)/(2c) for k < n - c. max_bias 8 gives the paper's slopes; ggml's m0^(h+1), m1^(2k+1)
// are the same numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pev {

// m = 2^(-max_bias * numerator / denominator).
struct AlibiSlope {
  int64_t numerator = 1;
  int64_t denominator = 1;
  // The power of the geometric series this slope is (m0^power or m1^power): an implementation
  // that rounds the ratio first (Hugging Face BLOOM's float32 base) errs by about power * u.
  int64_t power = 1;
};

enum class AlibiRule {
  kReference,  // the authors' rule above
  kGeometric,  // 2^(-max_bias (h + 1)/n) for every n: right only for powers of two (mlx#3071)
};

// The slopes of `heads` heads (ConfigError for heads < 1, or max_bias not finite and > 0).
std::vector<AlibiSlope> alibi_slopes(int heads, double max_bias, AlibiRule rule);

// The slope in double (exp2 of the exponent in double): for budgets and messages.
double slope_value(const AlibiSlope& s, double max_bias);

}  // namespace pev
