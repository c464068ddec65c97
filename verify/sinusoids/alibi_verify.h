// verify for ALiBi's slopes (docs/features.md §16.3): a vector of one slope per head against the
// authors' rule, each slope exact and rounded once (oracle/sinusoid.h).
#pragma once

#include "peverify/encoding/sinusoids/alibi.h"
#include "peverify/verify/sinusoids/sinusoid_verify.h"

namespace pev::verify::sinusoids {

// `in` holds the slopes (rows x width values, any shape; one per head in order). The model
// claim's budget for head h is output_ulps ulp + C u |m_h| (1 + power_h): the ratio's rounding
// compounds through the power (Hugging Face BLOOM's float32 pow of a rounded base).
SinusoidVerdict verify_alibi(const SinusoidInput& in, double max_bias, const Claim& claim);

}  // namespace pev::verify::sinusoids
