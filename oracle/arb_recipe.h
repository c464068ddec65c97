// The rotary recipes (docs/mathematics.md §12.1) in Arb's ball arithmetic, for the referee
// (arb_reference.h) only: written from Hugging Face's formulas as they read, and sharing no code
// with the MPFR path (not its frequencies, decisions, bounds or attention factor), so that an
// agreement between the two means something. Every branch is taken only where the ball decides it;
// otherwise the caller raises the precision.
#pragma once

#include <arb.h>

#include "peverify/encoding/spec.h"

namespace pev::oracle {

// w_j of any table (plain schedule or recipe) as a ball at `prec`; false while one of the
// recipe's branches (yarn's floor, ceil, clamps; llama3's bands) is undecided at this precision.
bool arb_frequency(const TableSpec& spec, int pair, slong prec, arb_t w);

// The attention factor A as a ball (exact where the config gives it).
void arb_attention(const TableSpec& spec, slong prec, arb_t a);

// What Arb decides for a recipe, for the worked figures of docs/mathematics.md §12.1.
struct ArbRecipeFacts {
  double yarn_low = 0, yarn_high = 0;       // the ends of yarn's ramp (high + 0.001 when equal)
  int kept = 0, smoothed = 0, divided = 0;  // llama3: pairs per band; yarn: ramp 0, between, 1
  double attention = 1;
};
// Throws std::runtime_error if 2^12 bits do not decide.
ArbRecipeFacts arb_recipe_facts(const TableSpec& spec);

}  // namespace pev::oracle
