// The amplitudes and frequencies the read-back proposes (docs/architecture.md §8.2): where the
// data's attention factor or its pairs' frequencies differ from the declared ones, the
// declarations that reproduce them, most specific first: the recipe's own parameters another way
// round (YaRN's truncation and betas, llama3's band factors, LongRoPE's factor lists), the
// interpolation written over the base, the config's rotary parameters not read at all, another
// schedule, a fitted base or linear factor, and last the frequencies as read back, pair by pair.
// Each is judged like every other alternative; the detail shows the pairs that differ.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "peverify/encoding/format.h"
#include "peverify/encoding/rope.h"
#include "peverify/verify/diagnosis.h"

namespace pev::verify::diagnosis {
namespace {

using Alternatives = std::vector<SpecAlternative>;

std::vector<double> declared_frequencies(const TableSpec& s) {
  std::vector<double> w;
  for (int j = 0; j < s.d_model / 2; ++j) w.push_back(frequency(s, j));
  return w;
}

// "; pairs 12..63 (52 of 64): w read back 0.42 .. 0.97 of the declared", or "".
std::string evidence(const DeclaredSpec& d) {
  if (!d.read_back) return "";
  const std::string pairs = readback::differing_pairs(*d.read_back, declared_frequencies(d.spec));
  return pairs.empty() ? "" : "; " + pairs;
}

void add(const DeclaredSpec& d, std::string cause, std::string detail, TableSpec spec,
         Alternatives& out, std::vector<std::string> flags = {}) {
  out.push_back(SpecAlternative{
      {std::move(cause), detail + evidence(d), std::move(flags)}, std::move(spec), {}});
}

// The spec with frequencies `w` and amplitude `a` (LongRoPE's factors carry any frequencies).
TableSpec with_amplitude(const DeclaredSpec& d, const std::function<double(int)>& w, double a) {
  TableSpec s = with_frequencies(d.spec, d.positions_end, w);
  s.rope.attention_factor = a;
  return s;
}

// amplitude: the attention factor the rows were multiplied by, read back from their norms.
void amplitude(const DeclaredSpec& d, Alternatives& out) {
  if (!d.read_back || !d.read_back->amplitude || !d.spec.rope.mrope_section.empty()) return;
  const double declared = attention_factor(d.spec), read = *d.read_back->amplitude;
  double error = 0;
  for (const readback::Row& r : d.observed->rows) error = std::max(error, r.error);
  const double tolerance = 4 * error + 1e-7 * declared;
  if (std::fabs(read - declared) <= tolerance) return;
  const std::string what =
      std::fabs(read - 1) <= tolerance
          ? fmt::format("the attention factor {:.6g} was not applied (as vllm PR#46280)", declared)
      : std::fabs(read - declared * declared) <= tolerance * declared
          ? fmt::format("the attention factor {:.6g} was applied twice ({:.6g} = {:.6g}^2)",
                        declared, read, declared)
          : fmt::format(
                "the attention factor is {:.7g}, not the declared {:.7g} (another "
                "mscale or its coefficient)",
                read, declared);
  add(d, "amplitude",
      fmt::format("{}: the {}' norms read back {:.7g}; no declaration states it", what, d.rows,
                  read),
      with_amplitude(
          d, [&](int k) { return frequency(d.spec, k); }, read),
      out);
}

// rotated-twice: the angle 2 theta and the amplitude A^2 (RoPE applied twice on one path,
// TensorRT-LLM#16378).
void rotated_twice(const DeclaredSpec& d, Alternatives& out) {
  if (!d.spec.rope.mrope_section.empty()) return;
  const double a = attention_factor(d.spec);
  add(d, "rotated-twice",
      fmt::format("the rotation was applied twice: every angle is twice the declared one{} (as "
                  "TensorRT-LLM#16378); no declaration states it",
                  a != 1 ? fmt::format(" and the amplitude {:.6g}^2", a) : ""),
      with_amplitude(
          d, [&](int k) { return 2 * frequency(d.spec, k); }, a * a),
      out);
}

// recipe-parameters: the declared recipe with one of its own parameters the other way round.
void recipe_parameters(const DeclaredSpec& d, Alternatives& out) {
  const TableSpec& s = d.spec;
  const auto variant = [&](std::string detail, const std::function<void(RopeScaling&)>& change) {
    TableSpec t = s;
    change(t.rope);
    if (t.rope == s.rope) return;
    // A recipe no config may declare (betas or band factors the wrong way round) is still what
    // the code computed: its double formulas, as per-pair frequencies, the amplitude kept.
    if (validate_rope(t.rope, t.d_model))
      t = with_amplitude(
          d, [&](int k) { return rope_double::frequency(t.rope, s.base, s.d_model, k); },
          attention_factor(s));
    add(d, "recipe-parameters", std::move(detail) + "; no declaration of this recipe states it",
        std::move(t), out);
  };
  switch (s.rope.type) {
    case RopeType::kYarn:
      variant(fmt::format("YaRN's correction range {} although the declaration says truncate: "
                          "{} (as vllm#27722, sglang#14270)",
                          s.rope.truncate ? "was not rounded" : "was rounded (floor and ceil)",
                          s.rope.truncate),
              [](RopeScaling& r) { r.truncate = !r.truncate; });
      variant(fmt::format("YaRN's beta_fast and beta_slow are swapped ({:g} and {:g}, as "
                          "torchtitan#3787)",
                          s.rope.beta_slow, s.rope.beta_fast),
              [](RopeScaling& r) { std::swap(r.beta_fast, r.beta_slow); });
      break;
    case RopeType::kLlama3:
      variant(fmt::format("llama3's low_freq_factor and high_freq_factor are swapped ({:g} and "
                          "{:g}): the band edges moved",
                          s.rope.high_freq_factor, s.rope.low_freq_factor),
              [](RopeScaling& r) { std::swap(r.low_freq_factor, r.high_freq_factor); });
      break;
    case RopeType::kLongRope:
      variant(
          "LongRoPE's short and long factor lists are swapped (the other list at this "
          "length)",
          [](RopeScaling& r) { std::swap(r.short_factor, r.long_factor); });
      break;
    default:
      break;
  }
}

// recipe-formula: the interpolated frequency written 1/(s b)^(2j/d) for 1/(s b^(2j/d))
// (tvm#18576): the plain frequencies of base s b.
void interpolation_over_the_base(const DeclaredSpec& d, Alternatives& out) {
  const TableSpec& s = d.spec;
  if (s.rope.factor == 1 || !s.rope.mrope_section.empty() ||
      (s.rope.type != RopeType::kLinear && s.rope.type != RopeType::kDynamic &&
       s.rope.type != RopeType::kYarn && s.rope.type != RopeType::kLlama3))
    return;
  TableSpec plain = s;
  plain.rope = RopeScaling{};
  plain.base = s.rope.factor * s.base;
  add(d, "recipe-formula",
      fmt::format("the interpolated frequency is 1/(s b)^(2j/d), not 1/(s b^(2j/d)): the plain "
                  "frequencies of base {:g} = factor {:g} x base {:g} (as tvm#18576); no "
                  "declaration states it",
                  plain.base, s.rope.factor, s.base),
      with_amplitude(
          d, [&](int k) { return frequency(plain, k); }, attention_factor(s)),
      out);
}

// rope-parameters-not-read: the base and the recipe both at their defaults (transformers 5's
// rope_parameters not read: MarinFold#184, vllm#56066, DeepSpeed#8345). Two fields at once.
void rope_parameters_not_read(const DeclaredSpec& d, Alternatives& out) {
  const TableSpec& s = d.spec;
  if (!d.from_config || s.base == default_base() || is_plain(s) || !s.rope.mrope_section.empty())
    return;
  TableSpec t = s;
  t.rope = RopeScaling{};
  t.base = default_base();
  add(d, "rope-parameters-not-read",
      fmt::format("the base and the recipe are both the defaults (base {:g}, no {} recipe): the "
                  "config's rotary parameters (transformers 5's rope_parameters) were not read, "
                  "as MarinFold#184, vllm#56066, DeepSpeed#8345; no declaration of this config "
                  "states it",
                  default_base(), name_of(s.rope.type)),
      std::move(t), out);
}

// schedule: the other schedule (tensor2tensor's and fairseq's exponent over d/2 - 1, Whisper's).
void other_schedule(const DeclaredSpec& d, Alternatives& out) {
  const TableSpec& s = d.spec;
  if (!is_plain(s) || s.d_model < 4) return;
  TableSpec t = s;
  t.schedule = s.schedule == Schedule::kPaper ? Schedule::kT2T : Schedule::kPaper;
  add(d, "schedule",
      fmt::format("the frequencies follow the {} schedule, not the {}",
                  t.schedule == Schedule::kT2T ? "t2t (b^(-k/(d/2-1)), tensor2tensor, fairseq, "
                                                 "Whisper)"
                                               : "paper's (b^(-2k/d))",
                  s.schedule == Schedule::kT2T ? "t2t" : "paper's"),
      std::move(t), out,
      {fmt::format("--schedule {}", t.schedule == Schedule::kT2T ? "t2t" : "paper")});
}

// A base and a linear factor fitted to the read-back frequencies of a plain declaration, and the
// frequencies of a multiplicative recurrence in float32.
void fitted(const DeclaredSpec& d, Alternatives& out) {
  const TableSpec& s = d.spec;
  if (!d.read_back || !s.rope.mrope_section.empty()) return;
  TableSpec plain = s;
  plain.rope = RopeScaling{};
  std::vector<double> log_bases, ratios;
  for (size_t j = 1; j < d.read_back->pairs.size(); ++j) {
    const auto& w = d.read_back->pairs[j].frequency;
    if (!w || !(*w > 0)) continue;
    const FrequencyExponent e = frequency_exponent(plain, static_cast<int>(j));
    log_bases.push_back(std::log(*w) * double(e.denominator) / double(e.numerator));
    ratios.push_back(frequency(plain, static_cast<int>(j)) / *w);
  }
  if (log_bases.size() < 2) return;
  std::sort(log_bases.begin(), log_bases.end());
  std::sort(ratios.begin(), ratios.end());
  const double base = std::stod(fmt::format("{:.6g}", std::exp(log_bases[log_bases.size() / 2])));
  const double factor = std::stod(fmt::format("{:.6g}", ratios[ratios.size() / 2]));
  // A fitted value within 1e-4 of the declared one is the arithmetic's rounding (a theta_scale
  // rounded to float32 is a base 2e-6 off), not another base or factor.
  if (std::fabs(base / s.base - 1) > 1e-4 && is_plain(s)) {
    TableSpec t = s;
    t.base = base;
    add(d, "base",
        fmt::format("the frequencies read back are base {:g}'s, not {:g}'s", base, s.base),
        std::move(t), out,
        d.from_config ? std::vector<std::string>{}
                      : std::vector<std::string>{fmt::format("--base {:g}", base)});
  }
  if (std::fabs(factor - 1) > 1e-4 && std::isfinite(factor)) {
    TableSpec t = plain;
    t.rope.type = RopeType::kLinear;
    t.rope.factor = factor;
    add(d, "recipe",
        fmt::format("the frequencies read back are the plain ones divided by {:g} (linear "
                    "interpolation by {:g}), not the declared {}",
                    factor, factor, is_plain(s) ? "plain ones" : describe(s.rope)),
        with_amplitude(
            d, [&](int k) { return frequency(t, k); }, attention_factor(s)),
        out);
  }
}

// frequencies: the frequencies as read back, pair by pair (the declared ones where a pair's did
// not read back): what the data was built with when no parameter above reproduces it.
void as_read_back(const DeclaredSpec& d, Alternatives& out) {
  if (!d.read_back || !d.spec.rope.mrope_section.empty()) return;
  const std::string pairs = readback::differing_pairs(*d.read_back, declared_frequencies(d.spec));
  if (pairs.empty()) return;
  out.push_back(SpecAlternative{
      {"frequencies",
       pairs + "; no base, schedule or parameter of the declared recipe tried reproduces them",
       {}},
      with_amplitude(
          d,
          [&](int k) {
            const auto& w = d.read_back->pairs[static_cast<size_t>(k)].frequency;
            return w ? *w : frequency(d.spec, k);
          },
          attention_factor(d.spec)),
      {}});
}

}  // namespace

void read_back_recipe(const DeclaredSpec& d, std::vector<SpecAlternative>& out) {
  amplitude(d, out);
  rotated_twice(d, out);
  recipe_parameters(d, out);
  interpolation_over_the_base(d, out);
  rope_parameters_not_read(d, out);
  other_schedule(d, out);
}

void read_back_fits(const DeclaredSpec& d, std::vector<SpecAlternative>& out) {
  fitted(d, out);
  as_read_back(d, out);
}

}  // namespace pev::verify::diagnosis
