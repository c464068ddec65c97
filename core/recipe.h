// The host side of the rotary recipes the implementations compute (docs/mathematics.md §12.3): the
// recipe's Python floats, the base a strategy raises, and the per-row helpers of the CPU
// strategies. The arithmetic itself is recipe_arith.h's, shared with the CUDA kernels.
#pragma once

#include <cstddef>
#include <vector>

#include "peverify/core/implementation.h"
#include "peverify/core/recipe_arith.h"
#include "peverify/encoding/spec.h"

namespace pev::core {

// Every recipe, in encoding/rope.h's order: what an entry that computes them all lists.
const std::vector<RopeType>& every_recipe();

// spec's recipe as Hugging Face's Python floats (rope_double's formulas in double). For longrope
// `ext_factors` points into spec.rope: spec must outlive the result.
RecipeScalars recipe_scalars(const TableSpec& spec);

// The base the strategy raises to its exponents: dynamic's rescaled base b' in double (Hugging
// Face's Python float, rope_double::dynamic_base), else spec.base.
double strategy_base(const TableSpec& spec);

// Whether impl's claim covers spec's frequencies: the base it raises (strategy_base) within
// max_base, every frequency at least min_frequency. Positions are max_position's business.
bool claims_frequencies(const Implementation& impl, const TableSpec& spec);

// The CPU strategies: f[j] (frequencies, or pow's denominators) become the recipe's values;
// returns whether the angle divides by them (angle_divides).
template <class A>
bool apply_recipe(const A& a, const RecipeScalars& r, bool pow_denominators,
                  std::vector<typename A::T>& f) {
  for (size_t j = 0; j < f.size(); ++j)
    f[j] = recipe_frequency(a, r, static_cast<int>(j), f[j], pow_denominators);
  return angle_divides(pow_denominators, r);
}

// x[i] * A for i < n, in the compute type (nothing to do when A = 1).
template <class A>
void scale_values(const A& a, const RecipeScalars& r, typename A::T* x, size_t n) {
  if (!scales_values(r)) return;
  for (size_t i = 0; i < n; ++i) x[i] = attention_scaled(a, r, x[i]);
}

}  // namespace pev::core
