// Judge::add_row's fast path in SIMD lanes, compiled once per target (Highway's dynamic dispatch).
// It runs for every element peverify judges, so it calls nothing per element: each lane is a
// finite value of the exact value's sign within the claim or is listed for the slow path, and the
// budget itself is computed, in scalar code, only where the lanes' bounds do not decide (a
// possible new worst fraction, a possibly vacuous budget). Every figure equals what the scalar
// Claim::allowed and Judge::judge give, bit for bit; only sum_abs's order is this file's.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peverify/measure/judge_row.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Re-included once per target, after foreach_target.h.
#include <algorithm>
#include <cmath>

#include "hwy/highway.h"
#include "peverify/measure/error.h"
#include "peverify/measure/judge_row.h"

HWY_BEFORE_NAMESPACE();
namespace pev::measure::row::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr size_t kPartialSums = 8;  // sum_abs's partial sums: column mod 8, on every target

// The output format's quantum at each lane's exact value and its inverse, exactly as ulp_of and
// 1 / ulp_of give them, from the exponent bits (powers of two). `usable` where the exact value is
// finite (the others go to the slow path). Float64's quanta below 2^-1023 (|exact| below
// 2^-970) have no inverse in double: `tiny` marks them, for scalar code to divide as error_of
// does; their ulp is exact (a subnormal).
template <class D, class V = hn::Vec<D>>
struct Quanta {
  V ulp, inverse;
  hn::Mask<D> usable, tiny;
};

template <class D, class V = hn::Vec<D>>
HWY_INLINE Quanta<D> QuantaOf(D d, V x, const FormatTraits& f) {
  const hn::RebindToSigned<D> di;
  const auto biased = hn::And(hn::ShiftRight<52>(hn::BitCast(di, x)), hn::Set(di, 0x7ff));
  // Zero and subnormal doubles take the format's smallest exponent, as larger exponents below it.
  const auto e = hn::Max(hn::Sub(biased, hn::Set(di, 1023)), hn::Set(di, f.min_exponent));
  const auto q = hn::Sub(e, hn::Set(di, f.precision - 1));  // >= -1074
  const auto normal = hn::Gt(q, hn::Set(di, -1023));
  Quanta<D> out;
  out.ulp = hn::BitCast(d, hn::IfThenElse(normal, hn::ShiftLeft<52>(hn::Add(q, hn::Set(di, 1023))),
                                          hn::Shl(hn::Set(di, 1), hn::Add(q, hn::Set(di, 1074)))));
  out.inverse =
      hn::BitCast(d, hn::ShiftLeft<52>(hn::Sub(hn::Set(di, 1023), hn::Max(q, hn::Set(di, -1023)))));
  out.usable = hn::RebindMask(d, hn::Ne(biased, hn::Set(di, 0x7ff)));
  out.tiny = hn::RebindMask(d, hn::Lt(q, hn::Set(di, -1023)));
  return out;
}

// Calls f(lane) for each lane of `mask` among the first n, in lane order.
template <class D, class F>
HWY_INLINE void ForEachLane(D d, hn::Mask<D> mask, size_t n, F&& f) {
  if (hn::AllFalse(d, mask)) return;
  uint8_t bits[8] = {};
  hn::StoreMaskBits(d, mask, bits);
  for (size_t lane = 0; lane < n; ++lane)
    if ((bits[lane / 8] >> (lane % 8)) & 1) f(lane);
}

// One row's fast path for one claim kind; the output format is a runtime value (its traits).
template <Claim::Kind kKind, bool kByEncoding>
class RowJudge {
  // On scalable targets (SVE, RVV) the lane count is known only at run time: one lane there, so
  // that kVectors vectors hold the kPartialSums partial sums on every target.
  static constexpr hn::CappedTag<double, HWY_HAVE_SCALABLE ? 1 : kPartialSums> d{};
  using V = hn::Vec<decltype(d)>;
  static constexpr size_t kVectors = kPartialSums / hn::MaxLanes(d);

 public:
  RowJudge(const Input& in, int* HWY_RESTRICT other)
      : in_(in),
        claim_(*in.claim),
        format_(traits_of(in.output)),
        cu_(claim_.c * claim_.u),
        top_(claim_.output_ulps * ulp_of(in.attention, in.output) + cu_ * in.attention),
        floor_inverse_(1.0 / ulp_of(kUlpFloor, in.output)),
        worst_(in.worst_so_far),
        other_(other) {
    const ClaimConstants& constants = claim_constants();
    budget_ulps_ = kKind == Claim::Kind::kStrict
                       ? constants.strict_ulps + constants.strict_slack_ulps
                       : constants.faithful_below_ulps;
  }

  Figures Run() {
    const size_t lanes = hn::Lanes(d), width = static_cast<size_t>(in_.width);
    // Locals, not members, so that they stay in registers across Settle's calls.
    Maxima m{hn::Zero(d), hn::Zero(d), hn::Zero(d)};
    V sums[kVectors];
    for (V& s : sums) s = hn::Zero(d);
    // Whole groups of kPartialSums columns, then the row's last, partial group.
    size_t first = 0;
    for (; first + kPartialSums <= width; first += kPartialSums) {
#pragma GCC unroll 8
      for (size_t v = 0; v < kVectors; ++v) Step<true>(first + v * lanes, lanes, sums[v], m);
    }
#pragma GCC unroll 8
    for (size_t v = 0; v < kVectors; ++v)
      if (first + v * lanes < width)
        Step<false>(first + v * lanes, std::min(lanes, width - first - v * lanes), sums[v], m);
    double partial[kPartialSums] = {};
    for (size_t v = 0; v < kVectors; ++v) hn::StoreU(sums[v], d, partial + v * lanes);
    for (double s : partial) r_.sum_abs += s;
    r_.max_abs = hn::GetLane(hn::MaxOfLanes(d, m.abs));
    r_.max_ulp = std::max(hn::GetLane(hn::MaxOfLanes(d, m.ulp)), tiny_max_ulp_);
    r_.max_ulp_floored = hn::GetLane(hn::MaxOfLanes(d, m.floored));
    r_.worst_fraction = worst_;
    return r_;
  }

 private:
  static V K(double x) { return hn::Set(d, x); }

  // One vector of columns [c, c + n): its figures into `sum` and the maxima, its lanes that need
  // the budget settled, its other lanes listed for the slow path.
  struct Maxima {
    V abs, ulp, floored;
  };

  template <bool kFull>
  HWY_INLINE void Step(size_t c, size_t n, V& sum, Maxima& m) {
    const hn::RebindToSigned<decltype(d)> di;
    const auto valid = hn::FirstN(d, n);
    // The row's last, partial vector is copied into a zeroed buffer: a row need not be aligned,
    // nor readable past its end.
    const auto load = [&](const double* p) HWY_ATTR {
      if constexpr (kFull) {
        return hn::LoadU(d, p + c);
      } else {
        HWY_ALIGN double part[kPartialSums] = {};
        std::copy_n(p + c, n, part);
        return hn::Load(d, part);
      }
    };
    const V g = load(in_.got), x = load(in_.exact);
    const V angle = hn::Mul(K(in_.pos), load(in_.angle_rate));
    const V error = hn::Abs(hn::Sub(g, x));
    const auto q = QuantaOf(d, x, format_);
    const auto signs_differ =
        hn::RebindMask(d, hn::Lt(hn::BitCast(di, hn::Xor(g, x)), hn::Zero(di)));
    auto fast = hn::AndNot(signs_differ, kFull ? q.usable : hn::And(valid, q.usable));
    auto wide = hn::Lt(K(0), K(0));  // a budget that may be vacuous (model only)
    V low;
    if constexpr (kKind == Claim::Kind::kModel) {
      // The model's budget is output_ulps ulp(x) + C u |x| + C u (angle + steps). Its last term,
      // t, is known without x; low, the whole sum lowered by 2^-48 of itself, stays below
      // Claim::allowed whatever order that sums the terms in (each side rounds at most 6
      // times: within 12u = 2^-49.4 of the other), and t + top bounds it above (|x|
      // is at most the attention factor).
      const V t = hn::Mul(K(cu_), hn::Add(angle, K(in_.steps_term)));
      low = hn::Mul(
          hn::Add(hn::Add(hn::Mul(K(claim_.output_ulps), q.ulp), hn::Mul(K(cu_), hn::Abs(x))), t),
          K(1 - 0x1p-48));
      fast = hn::And(fast, hn::Le(error, low));
      wide = hn::Ge(hn::Add(t, K(top_)), K(in_.vacuous[0]));
    } else {  // a multiple of the ulp; faithful's is the double below it (strictly below)
      V budget = hn::Mul(q.ulp, K(budget_ulps_));
      if constexpr (kKind == Claim::Kind::kFaithful)
        budget = hn::IfThenElse(hn::Gt(budget, hn::Zero(d)),
                                hn::BitCast(d, hn::Sub(hn::BitCast(di, budget), hn::Set(di, 1))),
                                budget);
      if constexpr (kByEncoding)
        fast = hn::And(fast, hn::RebindMask(d, hn::Eq(hn::BitCast(di, g),
                                                      hn::BitCast(di, load(in_.rounded)))));
      else
        fast = hn::And(fast, hn::Le(error, budget));
      low = budget;
    }
    const V e = hn::IfThenElseZero(fast, error);
    sum = hn::Add(sum, e);
    m.abs = hn::Max(m.abs, e);
    m.ulp = hn::Max(m.ulp, hn::IfThenElseZero(hn::AndNot(q.tiny, fast), hn::Mul(error, q.inverse)));
    const V floored_inverse =
        hn::IfThenElse(hn::Lt(hn::Abs(x), K(kUlpFloor)), K(floor_inverse_), q.inverse);
    m.floored = hn::Max(m.floored, hn::IfThenElseZero(fast, hn::Mul(error, floored_inverse)));
    // error / budget may exceed the worst so far (low <= budget), or the budget may be vacuous.
    const auto candidates = hn::And(fast, hn::Or(hn::Gt(error, hn::Mul(K(worst_), low)), wide));
    const auto slow = kFull ? hn::Not(fast) : hn::AndNot(fast, valid);
    const auto tiny = hn::And(fast, q.tiny);
    if (HWY_LIKELY(hn::AllFalse(d, hn::Or(hn::Or(candidates, slow), tiny)))) return;
    ForEachLane(d, candidates, n, [&](size_t lane) { Settle(c + lane); });
    ForEachLane(d, tiny, n, [&](size_t lane) {
      const double error = std::fabs(in_.got[c + lane] - in_.exact[c + lane]);
      tiny_max_ulp_ = std::max(tiny_max_ulp_, error / ulp_of(in_.exact[c + lane], in_.output));
    });
    ForEachLane(d, slow, n, [&](size_t lane) { other_[r_.others++] = static_cast<int>(c + lane); });
  }

  // One element the lanes could not settle alone: the budget, in scalar code, for a possible new
  // worst fraction and (model) a possibly vacuous budget, as the slow path would count them.
  HWY_NOINLINE void Settle(size_t c) {
    const double x = in_.exact[c], error = std::fabs(in_.got[c] - x);
    const double angle = in_.pos * in_.angle_rate[c];
    const double a = claim_.allowed(x, angle, in_.steps_term, in_.output);
    if constexpr (kKind == Claim::Kind::kModel) {
      // The lanes' `wide` test in the same operations (no contraction: -ffp-contract=off).
      if (cu_ * (angle + in_.steps_term) + top_ >= in_.vacuous[0]) {
        r_.vacuous[0] += a >= in_.vacuous[0];
        r_.vacuous[1] += a >= in_.vacuous[1];
      }
    }
    if (error > worst_ * a) {
      worst_ = error / a;
      r_.worst_column = static_cast<int>(c);
    }
  }

  const Input& in_;
  const Claim& claim_;
  const FormatTraits format_;
  const double cu_, top_, floor_inverse_;
  double budget_ulps_;
  double worst_;
  double tiny_max_ulp_ = 0;  // the ulp errors of Quanta::tiny lanes, divided as error_of does
  int* HWY_RESTRICT other_;
  Figures r_;
};

template <Claim::Kind kKind, bool kByEncoding>
Figures JudgeFast(const Input& in, int* HWY_RESTRICT other) {
  return RowJudge<kKind, kByEncoding>(in, other).Run();
}

Figures JudgeFastRow(const Input& in, int* HWY_RESTRICT other) {
  switch (in.claim->kind) {
    case Claim::Kind::kModel:
      return JudgeFast<Claim::Kind::kModel, false>(in, other);
    case Claim::Kind::kStrict:
      return in.by_encoding ? JudgeFast<Claim::Kind::kStrict, true>(in, other)
                            : JudgeFast<Claim::Kind::kStrict, false>(in, other);
    case Claim::Kind::kFaithful:
      break;
  }
  return in.by_encoding ? JudgeFast<Claim::Kind::kFaithful, true>(in, other)
                        : JudgeFast<Claim::Kind::kFaithful, false>(in, other);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace pev::measure::row::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pev::measure::row {
HWY_EXPORT(JudgeFastRow);

Figures judge_fast(const Input& in, int* other) {
  return HWY_DYNAMIC_DISPATCH(JudgeFastRow)(in, other);
}

}  // namespace pev::measure::row
#endif  // HWY_ONCE
