// Rotary caches built the way Hugging Face's float32 code builds them (modeling_rope_utils and
// LlamaRotaryEmbedding.forward), optionally with one of the bugs users have hit, for verify's
// tests: an honest cache must pass, every bug must fail and be named.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/verify/verify.h"

namespace pev::verify::testutil {

enum class Bug {
  kNone,
  kUnscaledLlama3,           // transformers#32330: the llama3 recipe returned theta unchanged
  kAttentionIgnored,         // vllm PR#46280: cos and sin not multiplied by the attention factor
  kYarnRangeFromExtended,    // Megatron-LM#1418: the correction range from the extended length
  kLinearTwice,              // the linear factor applied twice
  kDynamicNotRescaled,       // vllm#41236: the dynamic base never rescaled
  kShortFactorsPastL0,       // llama.cpp#24823: LongRoPE's short factors past the original length
  kBFloat16InvFreq,          // transformers#29496, Modalities#462: inv_freq rounded to bfloat16
  kRotaryDimAsHeadDim,       // vllm#43676: partial rotary's frequencies over the whole head
  kMscaleAllDimIgnored,      // yarn's mscale_all_dim dropped: the attention factor is g(s, 1)
  kProportionalOverRotated,  // pegainfer#820: proportional's exponent over 2a, not head_dim
};
std::string name_of(Bug b);

// inv_freq as Hugging Face computes it in float32 for spec's recipe (with `bug`). `head_dim` is
// the head's width, which kRotaryDimAsHeadDim puts in the exponents (b^(-2j/head_dim)) and the
// recipe's formulas in place of the rotary dimension; other bugs ignore it.
std::vector<float> framework_inv_freq(const TableSpec& spec, Bug bug = Bug::kNone,
                                      int head_dim = 0);

// Rows spec.start .. spec.start + rows - 1 of the cache in spec.layout: angles pos * inv_freq in
// float32, cos and sin in float32, times the attention factor rounded to float32, then rounded to
// `output` (the stored values, widened to double).
std::vector<double> framework_cache(const TableSpec& spec, uint64_t rows, Dtype output,
                                    Bug bug = Bug::kNone, int head_dim = 0);

// The failing verdict's worst element, described; empty when nothing failed or nothing is named.
std::string named_failure(const VerifyResult& r);

}  // namespace pev::verify::testutil
