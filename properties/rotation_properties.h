// Properties of an applied rotation (docs/mathematics.md §5), on any kernel that rotates q or k: a
// user's callable, or a registry rotation (crosscheck/). Each draws a case over the real domain
// (rotary dims, head dims, both pair conventions, default, llama3 and yarn recipes, positions to
// 2^22) and holds the kernel to tolerances derived from measure::RotationBudget, the per-element
// budget of the compute it claims (e_i below; 0 on pass-through dims):
//   norm      per pair, | |out| - A |in| | <= hypot(e_a, e_b)              (the triangle
//   inequality) relative  <R(m)q, R(n)k> = <R(m+s)q, R(n+s)k> within sum_i e_q,i |k^_i| + (|q^_i| +
//   e_q,i) e_k,i
//             for each side (both equal the exact A^2 q^T R((n-m)w) k)
//   inverse   R(m)^T R(m) x = A^2 x per pair within A hypot(e_a, e_b): the kernel's R(m), then the
//             exact transpose from the oracle (a kernel's positions cannot be negative)
//   composition  K(a) K(b) x = A K(a + b) x per pair within the three applications' budgets
//   score     the attention score <K(m) q, K(n) k> against the exact A^2 q^T R((n-m)w) k within
//             sum_i e_q,i (|k^_i| + e_k,i) + |q^_i| e_k,i: the figure attention sees
// plus 2^-48 of the magnitudes for the double arithmetic that evaluates each side.
//
// Usage (inside gtest):
//   properties::RotationUnderTest k{"my-rope", Dtype::kFloat32, Dtype::kFloat32,
//                                   *measure::parse_rotation_compute("float32"), my_apply};
//   EXPECT_TRUE(properties::check_rotation_properties(k));
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "peverify/encoding/positions.h"
#include "peverify/encoding/rotation.h"
#include "peverify/measure/rotation_budget.h"

namespace pev::properties {

// x: n tokens x heads x spec.head_dim values (each representable in the kernel's input type);
// token i at row tokens[i] of positions. Writes the kernel's outputs, widened, to out.
using RotationApply = std::function<void(const RotationSpec& spec, const RowPositions& positions,
                                         const uint64_t* tokens, uint64_t n, int heads,
                                         const double* x, double* out)>;

struct RotationUnderTest {
  std::string name;
  Dtype input = Dtype::kFloat32, output = Dtype::kFloat32;
  measure::RotationCompute compute;  // what its budget is derived from
  RotationApply apply;
};

// One drawn case each, asserted with RC_ASSERT: call inside rc::check or RC_GTEST_PROP.
void rotation_norm_property(const RotationUnderTest& k);
void rotation_relative_position_property(const RotationUnderTest& k);
void rotation_inverse_property(const RotationUnderTest& k);
// R(a) R(b) x = A R(a + b) x per pair within the three applications' budgets: the kernel on its
// own output at a, against it at a + b (positions off by a constant fail it; relative position
// cannot see them). Only for kernels whose output type is no finer than their input type.
void rotation_composition_property(const RotationUnderTest& k);

// The attention score of a query at m and a key at n against the exact score, within what the
// element budgets allow (the error growth with position users care about).
void rotation_score_property(const RotationUnderTest& k);

// The same figure measured rather than asserted, for the report (docs/features.md §15.6): `samples`
// (query, key) pairs at context length `context`, the query among the context's last 64
// positions and the key anywhere in it, q and k drawn from `seed` in the kernel's input type.
// Errors are relative to A^2 |q| |k| (the score's scale); budget_ratio is the largest error over
// its allowance (<= 1 when every score is within the kernel's claim).
struct ScoreError {
  uint64_t context = 0, samples = 0;
  double max = 0, median = 0, budget_ratio = 0;
};
ScoreError score_error(const RotationUnderTest& k, const RotationSpec& spec, uint64_t context,
                       uint64_t samples, uint64_t seed);

// The five through rc::check (RapidCheck prints a failure's case and its replay seed); true when
// all hold.
bool check_rotation_properties(const RotationUnderTest& k);

}  // namespace pev::properties
