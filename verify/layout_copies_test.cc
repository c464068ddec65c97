// Where a layout stores one number twice (rope-cos-dup, rope-sin-dup, rope-cos-pairs,
// rope-sin-pairs), the two copies are one angle evaluated twice (torch.cat((freqs, freqs)),
// repeat_interleave): they may differ by what the claim allows that evaluation (PyTorch's CPU cos
// gives a vector lane and the scalar tail different bits), never by more. A copy beyond it fails
// `bounded` naming both elements, even where the difference is inside the model budget and looks
// like the column's own errors; an honest cache passes.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/verify/framework_cache_testutil.h"
#include "peverify/verify/verify.h"

namespace pev::verify {
namespace {

constexpr uint64_t kRows = 32;

// Rows start .. start + kRows - 1 of Llama 3.1 8B's float32 cache in `layout`, built as Hugging
// Face builds it.
struct Cache {
  TableSpec spec;
  std::vector<double> values;
};
VerifyResult verify_cache(Cache c, const Claim& claim);

Cache llama_cache(Layout layout, uint64_t start) {
  const ModelRope model = *model_preset("llama-3.1-8b", "");
  Cache c{spec_of(model, layout, start, kRows), {}};
  c.values = testutil::framework_cache(c.spec, kRows, Dtype::kFloat32);
  return c;
}

const properties::PropertyVerdict& bounded_of(const VerifyResult& r) {
  for (const properties::PropertyVerdict& v : r.verdicts)
    if (v.property == "bounded") return v;
  throw std::logic_error("no bounded verdict");
}

VerifyResult verify_cache(Cache c) {
  return verify_cache(std::move(c), Claim::model(Dtype::kFloat32));
}

VerifyResult verify_cache(Cache c, const Claim& claim) {
  const int width = table_width(c.spec);
  TableInput in{"cache", "Hugging Face style cache", Dtype::kFloat32, c.values.size() / width,
                {},      std::move(c.values)};
  VerifyOptions o;
  o.spec = c.spec;
  o.claim = claim;
  return verify_table(std::move(in), o);
}

TEST(LayoutCopies, AHalfThatDisagreesFailsInsideTheModelBudgetNamingBothElements) {
  // The trial's case: +3e-3 at [100000, 70] of a rope-cos-dup cache (head_dim 128: column 70 is
  // the second copy of pair 6), inside the float32 model budget at that position.
  Cache c = llama_cache(Layout::kRopeCosDup, 100000 - kRows / 2);
  const int width = table_width(c.spec);
  const size_t at = (kRows / 2) * width + 70;
  const double honest = c.values[at];
  c.values[at] = static_cast<float>(honest + 3e-3);
  const VerifyResult r = verify_cache(c);
  EXPECT_FALSE(r.holds());
  const properties::PropertyVerdict& v = bounded_of(r);
  EXPECT_FALSE(v.holds) << v.summary;
  EXPECT_EQ(v.figures.at("copies_differ"), 1);
  EXPECT_NE(v.summary.find("1 differing from the other copy of their value"), std::string::npos)
      << v.summary;
  ASSERT_FALSE(v.worst.empty());
  EXPECT_EQ(v.worst.front().pos, 100000u);
  EXPECT_EQ(v.worst.front().column, 70);
  EXPECT_EQ(v.worst.front().expected, honest);  // the other copy's value, which is dim 6's
  EXPECT_NE(v.worst.front().what.find("dim 6"), std::string::npos) << v.worst.front().what;
  // The oracle alone would have let it through: the element is inside the model budget.
  for (const properties::PropertyVerdict& o : r.verdicts)
    if (o.property == "oracle") {
      EXPECT_TRUE(o.holds) << o.summary;
    }
}

// Past what two evaluations of one value may differ by (2 x (C u |x| + half an ulp) under
// float32's model: 33 to 65 ulp of |x|), in either copy, of every duplicating layout: fails.
TEST(LayoutCopies, ACopyBeyondTwoEvaluationsOfOneValueFailsInEveryDuplicatingLayout) {
  for (const Layout layout :
       {Layout::kRopeCosDup, Layout::kRopeSinDup, Layout::kRopeCosPairs, Layout::kRopeSinPairs}) {
    for (const int column : {0, 1, 64, 127}) {
      Cache c = llama_cache(layout, 5000);
      const size_t at = 3 * static_cast<size_t>(table_width(c.spec)) + column;
      const double v = c.values[at];
      c.values[at] = static_cast<float>(v + 256 * ulp_of(v, Dtype::kFloat32));
      const VerifyResult r = verify_cache(c);
      const properties::PropertyVerdict& b = bounded_of(r);
      EXPECT_FALSE(b.holds) << name_of(layout) << " column " << column;
      EXPECT_EQ(b.figures.at("copies_differ"), 1) << name_of(layout) << " column " << column;
      ASSERT_FALSE(b.worst.empty());
      EXPECT_EQ(b.worst.front().pos, 5003u);
    }
  }
}

// One ulp between the copies (PyTorch's vector lane against its scalar tail) is two evaluations
// of one value under the model claim, and not under strict, which fixes every bit.
TEST(LayoutCopies, OneUlpBetweenTheCopiesIsAllowedByTheModelNotByStrict) {
  Cache c = llama_cache(Layout::kRopeCosDup, 5000);
  const size_t at = 3 * static_cast<size_t>(table_width(c.spec)) + 70;
  c.values[at] = std::nextafter(static_cast<float>(c.values[at]), 2.0f);
  EXPECT_EQ(bounded_of(verify_cache(c)).figures.at("copies_differ"), 0);
  EXPECT_EQ(bounded_of(verify_cache(c, Claim::strict())).figures.at("copies_differ"), 1);
}

TEST(LayoutCopies, HonestCachesPassAndSayTheirCopiesAgree) {
  for (const Layout layout :
       {Layout::kRopeCosDup, Layout::kRopeSinDup, Layout::kRopeCosPairs, Layout::kRopeSinPairs}) {
    const VerifyResult r = verify_cache(llama_cache(layout, 100000 - kRows / 2));
    EXPECT_TRUE(r.holds()) << name_of(layout);
    const properties::PropertyVerdict& v = bounded_of(r);
    EXPECT_EQ(v.figures.at("copies_differ"), 0);
    EXPECT_NE(v.summary.find("both copies of every value agree"), std::string::npos) << v.summary;
  }
}

TEST(LayoutCopies, LayoutsThatHoldEachValueOnceSayNothingOfCopies) {
  for (const Layout layout : {Layout::kInterleaved, Layout::kHalves, Layout::kRopeCos,
                              Layout::kRopeCosSin, Layout::kPolar}) {
    const VerifyResult r = verify_cache(llama_cache(layout, 0));
    const properties::PropertyVerdict& v = bounded_of(r);
    EXPECT_EQ(v.figures.count("copies_differ"), 0u) << name_of(layout);
    EXPECT_EQ(v.summary.find("copies"), std::string::npos) << v.summary;
  }
}

}  // namespace
}  // namespace pev::verify
