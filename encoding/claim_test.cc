#include "peverify/encoding/claim.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pev {
namespace {

// The constants' derivations (docs/mathematics.md §3) as inequalities: a change to claims.json that
// breaks one of them breaks a claim some registry entry relies on.
TEST(ClaimConstants, CoverTheErrorAnalysesTheyComeFrom) {
  const ClaimConstants& k = claim_constants();
  const double ln_max_base = std::log(k.limits.max_base);  // the model entries' largest base
  EXPECT_GE(k.direct_c, 2 * ln_max_base + 4);              // logspace: exp amplifies 2 roundings
  EXPECT_GE(k.cuda_accurate_c, 2 * ln_max_base + 5);       // expf's 2 ulp
  EXPECT_GE(k.cuda_fast_c, 6 * ln_max_base + 8);           // __powf's log2/exp2 chain
  EXPECT_EQ(k.nearest_output_ulps, 0.5);
  EXPECT_EQ(k.truncate_output_ulps, 1.0);
  EXPECT_EQ(k.strict_ulps, 0.5);
  EXPECT_EQ(k.strict_slack_ulps, 0x1p-28);
  EXPECT_EQ(k.faithful_below_ulps, 1.0);
  EXPECT_LT(k.vacuous_budget[0], k.vacuous_budget[1]);
}

// Where the registry's claims hold, against what each limit rests on.
TEST(ClaimConstants, LimitsAreWhereTheirDerivationsHold) {
  const ClaimConstants& k = claim_constants();
  const ClaimConstants::Limits& l = k.limits;
  // Native float16 frequencies stay normal: at least the smallest normal float16, which plain
  // tables (w >= 1/b) reach at b = 2^14.
  EXPECT_EQ(l.float16_min_frequency, std::ldexp(1.0, traits_of(Dtype::kFloat16).min_exponent));
  EXPECT_EQ(l.float16_max_base, 1 / l.float16_min_frequency);
  // 65504 is the largest float16; from half an ulp above it (65520) positions round to Inf.
  EXPECT_LT(l.float16_max_position, 65504 + ulp_of(65504, Dtype::kFloat16) / 2);
  // A recurrence's rows grow like (1 + u)^pos: the linear model C u pos must still cover it.
  for (const Dtype t : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    const double u_pos =
        unit_roundoff(t) * static_cast<double>(l.recurrence_max_position[static_cast<size_t>(t)]);
    EXPECT_LE(std::expm1(u_pos), k.direct_c * u_pos) << name_of(t);
  }
  EXPECT_LT(l.precise_max_position, uint64_t{1} << 24);  // the precise strategy's proof
  EXPECT_GT(l.anchor_interval, 1u);                      // else no row would be rotated
}

TEST(Claim, ModelIsOutputRoundingPlusCuTimesValueAngleAndSteps) {
  const Claim c = Claim::model(Dtype::kFloat32);
  EXPECT_EQ(c.u, 0x1p-24);
  EXPECT_EQ(c.c, claim_constants().direct_c);
  // exact 0.75: float16 ulp 2^-11; angle 100, 3 steps.
  EXPECT_DOUBLE_EQ(c.allowed(0.75, 100, 3, Dtype::kFloat16),
                   0.5 * 0x1p-11 + c.c * 0x1p-24 * (0.75 + 100 + 3));
  const Claim truncating = Claim::model(Dtype::kBFloat16, 32, 1.0);
  EXPECT_EQ(truncating.u, 0x1p-8);
  EXPECT_DOUBLE_EQ(truncating.allowed(-0.75, -2, 0, Dtype::kBFloat16),
                   0x1p-8 + 32 * 0x1p-8 * (0.75 + 2));
}

TEST(Claim, FaithfulIsStrictlyBelowOneUlpAndStrictIsHalfAnUlp) {
  const double ulp = 0x1p-24;  // float32 at 0.75
  EXPECT_LT(Claim::faithful().allowed(0.75, 1e9, 1e9, Dtype::kFloat32), ulp);
  EXPECT_EQ(Claim::faithful().allowed(0.75, 0, 0, Dtype::kFloat32), std::nextafter(ulp, 0.0));
  EXPECT_EQ(Claim::strict().allowed(0.75, 1e9, 0, Dtype::kFloat32), ulp * (0.5 + 0x1p-28));
  // Near zero the ulp bottoms out at the smallest subnormal.
  EXPECT_EQ(Claim::strict().allowed(0.0, 0, 0, Dtype::kFloat16), 0x1p-24 * (0.5 + 0x1p-28));
}

TEST(Claim, DescribesItselfInAFewWords) {
  EXPECT_EQ(Claim::model(Dtype::kFloat32).describe(), "model(C=32, u=2^-24)");
  EXPECT_EQ(Claim::model(Dtype::kFloat64, 36, 1.0).describe(),
            "model(C=36, u=2^-53, 1 ulp for the output)");
  EXPECT_EQ(Claim::faithful().describe(), "faithful");
  EXPECT_EQ(Claim::strict().describe(), "strict");
}

TEST(Claim, KindsHaveTheirCommandLineNames) {
  EXPECT_EQ(name_of(Claim::Kind::kModel), "model");
  EXPECT_EQ(name_of(Claim::Kind::kFaithful), "faithful");
  EXPECT_EQ(name_of(Claim::Kind::kStrict), "strict");
}

}  // namespace
}  // namespace pev
