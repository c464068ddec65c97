// What an honest RoPE kernel may make of one output element (docs/features.md §15.2): the budget
// `verify-rotary` holds every rotated element to under its model claim. A kernel multiplies its
// inputs by cos and sin values ĉ, ŝ that carry the error of the cache (or of sin and cos computed
// on the fly) and sums the products in its compute type:
//   out_a = fl(fl(x_a ĉ) - fl(x_b ŝ))   (one rounding less with an FMA)
// and stores the result in the output type. Against the exact r = x_a c - x_b s (c = A cos p w_j,
// s = A sin p w_j, from the exact inputs):
//   |out_a - r| <= D + u_p P (1 + u_p) + (u_p + u_o)(|r| + D + u_p P) + tiny,
//   D = |x_a| E_c + |x_b| E_s          (the cache's own errors, E from the model claim, §3.1)
//   P = |x_a| (|c| + E_c) + |x_b| (|s| + E_s)   (max of the two terms with an FMA)
// with u_p the compute type's unit roundoff, u_o the output's when it is coarser (else 0: the
// sum's rounding is the output's), and `tiny` the products' and the sum's underflow.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "peverify/encoding/rotation.h"
#include "peverify/measure/judge.h"

namespace pev::measure {

// How the kernel computes (`--compute`).
struct RotationCompute {
  std::string name;  // float32, float32-fma, bfloat16, float64
  Dtype cache;       // the type of the cos and sin it multiplies by
  Dtype products;    // the type of the products and their sum
  bool fma = false;  // the sum fused with one product
  // The cache's angles by ggml's recurrence over pairs (Claim::ggml): ggml-cpu's rope.
  bool pair_recurrence = false;
  std::string describe() const;
};
// float32: a float32 cache (or float32 sin and cos of a float32 angle), float32 products and
// sum; float32-fma: the same with an FMA; ggml: float32 with the angle by ggml's recurrence
// over pairs (ggml-cpu's rope, theta_{j+1} = theta_j theta_scale); bfloat16: Hugging Face with a
// bfloat16 model (the float32 cache cast to bfloat16, every product and sum rounded to bfloat16);
// float64: a float64 reference. nullopt for another name.
std::optional<RotationCompute> parse_rotation_compute(std::string_view name);

class RotationBudget {
 public:
  RotationBudget(const RotationSpec& spec, const RotationCompute& compute, Dtype output);
  // The cache's own errors E_c, E_s at (pos, pair): the same for every head of a token.
  struct CacheErrors {
    double c, s;
  };
  CacheErrors cache_errors(uint64_t pos, int pair, double c, double s) const {
    return {cache_.allowed(pos, pair, 0, c), cache_.allowed(pos, pairs_ + pair, 0, s)};
  }
  // The budget of one output of a pair: `own` the input it replaces (x_a for out_a), `other` its
  // partner (x_b), c and s the exact A cos, A sin, r the exact output, e the cache's errors there.
  double allowed(const CacheErrors& e, double own, double other, double c, double s,
                 double r) const;
  const RotationCompute& compute() const { return compute_; }

 private:
  RotationCompute compute_;
  Judge cache_;  // the cache's model claim: columns [cos of every pair | sin of every pair]
  int pairs_;
  double u_p_, u_o_, tiny_;
};

}  // namespace pev::measure
