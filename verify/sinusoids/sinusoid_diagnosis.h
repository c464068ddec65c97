// Naming the cause of a failing sinusoidal table (docs/features.md §16.4), as verify does for its
// tables (verify/diagnosis.h): the declarations one field away that the command built
// (the other layout, the other shift, the timesteps rounded through another type, the axes' ids
// swapped, ...) are judged with the exact oracle on sampled rows of the same data; the first that
// passes them is named with its flags, otherwise the failure is isolated. Internal.
#pragma once

#include <vector>

#include "peverify/verify/sinusoids/sinusoid_verify.h"

namespace pev::verify::sinusoids {

Diagnosis diagnose(const SinusoidInput& in, const SinusoidDeclaration& declared,
                   const std::vector<SinusoidAlternative>& alternatives, const Claim& claim,
                   const SinusoidVerdict& failed, int threads);

}  // namespace pev::verify::sinusoids
