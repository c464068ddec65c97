// The MPFR oracle against an independent library (docs/mathematics.md §6), bit for bit in the
// target format and in float64: a fixed-seed sample in every run (arb_agreement_exhaustive_test.cc
// runs >= 10^5 cases per format), and the edges of float16's range that the sample rarely reaches.
#include <gtest/gtest.h>

#include <string>

#include "peverify/encoding/format.h"
#include "peverify/oracle/arb_agreement_testutil.h"
#include "peverify/oracle/arb_reference.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle {
namespace {

constexpr uint64_t kSeed = 20240521;
constexpr int kCasesPerFormat = 5000;
constexpr int kCasesPerSpec = 20;

void expect_agreement(Dtype target) {
  const auto cases = agreement::sample_cases(kSeed, kCasesPerFormat, kCasesPerSpec);
  const agreement::AgreementSummary s = agreement::run_agreement(cases, target);
  std::string shown;
  for (const std::string& f : s.failures) shown += "\n  " + f;
  EXPECT_EQ(s.failure_count, 0u) << s.failure_count << " of " << cases.size()
                                 << " cases disagree (seed " << kSeed << "):" << shown;
  EXPECT_EQ(s.elements, 2u * cases.size());
}

TEST(MpfrVsArb, Float64Sample) { expect_agreement(Dtype::kFloat64); }
TEST(MpfrVsArb, Float32Sample) { expect_agreement(Dtype::kFloat32); }
TEST(MpfrVsArb, Float16Sample) { expect_agreement(Dtype::kFloat16); }
TEST(MpfrVsArb, BFloat16Sample) { expect_agreement(Dtype::kBFloat16); }

// The lowest frequencies of a large base make sin(w) ~ 2e-6 at pos 1, below float16's smallest
// normal 2^-14: the result must be the correctly rounded subnormal.
TEST(MpfrVsArb, Float16SubnormalLowFrequencies) {
  for (int d : {512, 1024, 4096}) {
    TableSpec spec;
    spec.d_model = d;
    spec.base = 5e5;
    const auto engine = make_mpfr_engine(spec, Dtype::kFloat16);
    TileValues v;
    for (int pair = d / 2 - 16; pair < d / 2; ++pair) {
      engine->evaluate({1, 1, pair, 1}, v);
      const uint64_t sin_bits = encode_exact(v.sin_rounded[0], Dtype::kFloat16);
      const uint64_t cos_bits = encode_exact(v.cos_rounded[0], Dtype::kFloat16);
      const ArbReference a = arb_reference(spec, 1, pair, Dtype::kFloat16);
      SCOPED_TRACE("d=" + std::to_string(d) + " pair=" + std::to_string(pair));
      EXPECT_EQ((sin_bits >> 10) & 0x1f, 0u) << "not subnormal: " << v.sin_rounded[0];
      EXPECT_NE(sin_bits & 0x3ff, 0u) << "rounded to zero";
      EXPECT_EQ(sin_bits, a.sin_bits) << std::hexfloat << v.sin_rounded[0] << " vs " << a.sin_value;
      EXPECT_EQ(cos_bits, a.cos_bits) << std::hexfloat << v.cos_rounded[0] << " vs " << a.cos_value;
    }
  }
}

// sin(pos) for pos a continued-fraction numerator of pi is ~2^-46 or ~2^-52: below half of
// float16's smallest subnormal, so it underflows to a zero that keeps the sign.
TEST(MpfrVsArb, Float16UnderflowKeepsTheSign) {
  TableSpec spec;
  spec.d_model = 2;
  const auto engine = make_mpfr_engine(spec, Dtype::kFloat16);
  TileValues v;
  struct Expected {
    uint64_t pos;
    uint64_t bits;
  };
  for (const Expected e : {Expected{8958937768937, 0x8000}, Expected{5706674932067741, 0x0000}}) {
    engine->evaluate({e.pos, 1, 0, 1}, v);
    SCOPED_TRACE("pos=" + std::to_string(e.pos));
    EXPECT_EQ(encode_exact(v.sin_rounded[0], Dtype::kFloat16), e.bits);
    EXPECT_EQ(arb_reference_bits(spec, e.pos, 0, true, Dtype::kFloat16), e.bits);
  }
}

}  // namespace
}  // namespace pev::oracle
