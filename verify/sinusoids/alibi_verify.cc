#include "peverify/verify/sinusoids/alibi_verify.h"

#include <fmt/format.h>

#include <chrono>

#include "peverify/encoding/model_config.h"
#include "peverify/measure/error.h"
#include "peverify/oracle/sinusoid.h"
#include "peverify/verify/diagnosis.h"

namespace pev::verify::sinusoids {
namespace {

struct Judged {
  bool ok;
  double exact, error, allowed;
};

Judged judge_slope(double got, const AlibiSlope& s, double max_bias, const Claim& claim,
                   Dtype dtype) {
  const oracle::ExactSlope e = oracle::exact_alibi_slope(s, max_bias, dtype);
  const double rounded = e.rounded, exact = e.value;
  if (!std::isfinite(got)) return {false, exact, INFINITY, 0};
  const double error = std::fabs(got - exact);
  const double allowed = claim.kind == Claim::Kind::kModel
                             ? claim.output_ulps * ulp_of(exact, dtype) +
                                   claim.c * claim.u * exact * (1 + static_cast<double>(s.power))
                             : claim.allowed(exact, 0, 0, dtype);
  bool ok = error <= allowed;
  if (claim.kind == Claim::Kind::kStrict) ok = measure::same_encoding(got, rounded);
  // Only a power of two is its own double (the oracle says so); any other slope lies strictly
  // between two doubles, either of which is faithful in float64.
  if (claim.kind == Claim::Kind::kFaithful)
    ok = measure::is_faithful_encoding(got, exact, rounded, dtype, e.exact);
  return {ok, exact, error, allowed};
}

// Heads outside the claim under one rule and max_bias.
uint64_t failing_under(const std::vector<double>& got, const std::vector<AlibiSlope>& slopes,
                       double max_bias, const Claim& claim, Dtype dtype) {
  uint64_t n = 0;
  for (size_t h = 0; h < got.size(); ++h)
    n += !judge_slope(got[h], slopes[h], max_bias, claim, dtype).ok;
  return n;
}

Diagnosis diagnose_alibi(const std::vector<double>& got, double max_bias, const Claim& claim,
                         Dtype dtype, uint64_t failing) {
  const int n = static_cast<int>(got.size());
  struct Candidate {
    diagnosis::Alternative named;
    std::vector<AlibiSlope> slopes;
    double max_bias;
  };
  std::vector<Candidate> candidates;
  candidates.push_back({{"recipe",
                         fmt::format("geometric slopes 2^(-{:g}(h+1)/{}) for every head, the "
                                     "authors' rule only for a power-of-two count (mlx#3071)",
                                     max_bias, n),
                         {}},
                        alibi_slopes(n, max_bias, AlibiRule::kGeometric),
                        max_bias});
  std::vector<AlibiSlope> shifted = alibi_slopes(n, max_bias, AlibiRule::kReference);
  for (AlibiSlope& s : shifted) s.numerator -= 1, s.power -= 1;
  candidates.push_back(
      {{"positions", "every exponent one step early: head 0's slope 1 (aprender#2143)", {}},
       shifted,
       max_bias});
  std::vector<AlibiSlope> reversed = alibi_slopes(n, max_bias, AlibiRule::kReference);
  std::reverse(reversed.begin(), reversed.end());
  candidates.push_back({{"layout", "the heads in reverse order", {}}, reversed, max_bias});
  for (const double other : {4.0, 16.0})
    if (other != max_bias)
      candidates.push_back({{"base",
                             fmt::format("max_bias {:g}", other),
                             {fmt::format("--alibi-max-bias {}", other)}},
                            alibi_slopes(n, other, AlibiRule::kReference),
                            other});
  std::vector<diagnosis::Alternative> named;
  for (const Candidate& c : candidates) named.push_back(c.named);
  return diagnosis::choose(
      named, failing,
      [&](size_t i, uint64_t) {  // a few slopes: every one judged
        return failing_under(got, candidates[i].slopes, candidates[i].max_bias, claim, dtype);
      },
      fmt::format("in all {} heads", n),
      [&](std::string why) {
        Diagnosis d;
        d.cause = diagnosis::documented("isolated");
        d.detail = std::move(why);
        return d;
      });
}

}  // namespace

SinusoidVerdict verify_alibi(const SinusoidInput& in, double max_bias, const Claim& claim) {
  const auto start = std::chrono::steady_clock::now();
  if (in.values.size() > 65536)
    throw ConfigError(fmt::format("{} slopes: ALiBi takes at most 65536 heads", in.values.size()));
  const int heads = static_cast<int>(in.values.size());
  const std::vector<AlibiSlope> slopes = alibi_slopes(heads, max_bias, AlibiRule::kReference);
  SinusoidVerdict v(in, "ALiBi slopes",
                    fmt::format("{} heads, max_bias {:g}, the authors' rule", heads, max_bias),
                    "one slope per head", claim);
  v.elements = in.values.size();
  SinusoidProperty oracle("oracle"), bounded("bounded");
  for (int h = 0; h < heads; ++h) {
    const double got = in.values[static_cast<size_t>(h)];
    const Judged j = judge_slope(got, slopes[static_cast<size_t>(h)], max_bias, claim, in.dtype);
    const SinusoidFinding f{static_cast<uint64_t>(h),
                            0,
                            {},
                            got,
                            j.exact,
                            j.error,
                            j.allowed,
                            measure::floored_ulps(j.error, j.exact, in.dtype, 0),
                            std::isfinite(got) ? "number" : "not finite"};
    if (std::isfinite(got)) {
      v.max_abs_error = std::max(v.max_abs_error, j.error);
      v.max_ulp = std::max(v.max_ulp, f.ulp);
    }
    if (!j.ok) record_failure(oracle, f);
    if (!(got >= 0 && got <= 1))  // 0: a slope below the format's range
      record_failure(bounded, {f.row, 0, {}, got, 1, 0, 0, 0, "a slope is in [0, 1]"});
  }
  oracle.judged = bounded.judged = v.elements;
  oracle.note = fmt::format(
      "max abs error {:.3g}, max {:.3g} ulp; {} of {} slopes outside the "
      "budget ({})",
      v.max_abs_error, v.max_ulp, oracle.failed, heads, claim.describe());
  bounded.note = bounded.holds ? fmt::format("all {} slopes in [0, 1]", heads)
                               : fmt::format("{} slopes outside [0, 1]", bounded.failed);
  v.properties = {bounded, oracle};
  if (!oracle.holds)
    v.diagnosis = diagnose_alibi(in.values, max_bias, claim, in.dtype, oracle.failed);
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return v;
}

}  // namespace pev::verify::sinusoids
