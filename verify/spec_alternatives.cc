// The alternatives of the spec both diagnoses try (verify/diagnosis.h): a catalogue of
// generators, one per cause, each adding the declarations one field away that its cause
// predicts. Adding a cause is adding a generator to kGenerators (and its word to
// encoding/vocabulary.json's diagnosis_causes).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "peverify/encoding/rope.h"
#include "peverify/verify/diagnosis.h"

namespace pev::verify::diagnosis {
namespace {

using Alternatives = std::vector<SpecAlternative>;

// The declared spec with one field about to change, as the diagnosis will say it.
SpecAlternative alternative(const DeclaredSpec& d, std::string cause, std::string detail,
                            std::vector<std::string> flags) {
  return SpecAlternative{{std::move(cause), std::move(detail), std::move(flags)}, d.spec, {}};
}

// Every position (or id) moved by `by`, where the moved ones are still positions.
void add_shift(const DeclaredSpec& d, int64_t by, Alternatives& out) {
  const TableSpec& s = d.spec;
  const int64_t start = static_cast<int64_t>(s.start) + by;
  SpecAlternative a =
      d.ids_given
          ? alternative(d, "positions",
                        fmt::format("every position id is off by {:+d}: the {} are at the ids of "
                                    "{} plus {}",
                                    by, d.rows, d.ids_name, by),
                        {})
          : alternative(d, "positions",
                        fmt::format("the {} start at position {}, not {} (positions off by {:+d})",
                                    d.rows, start, s.start, by),
                        {fmt::format("--start {}", start)});
  if (d.ids) {
    a.ids = shifted(*d.ids, by);
    if (!a.ids) return;
  } else {
    if (start < 0 || static_cast<uint64_t>(start) > kMaxPosition) return;
    a.spec.start = static_cast<uint64_t>(start);
  }
  // The sequence length dynamic and LongRoPE take moves with the positions, as the shifted
  // declaration would set it.
  if (needs_sequence_length(a.spec.rope))
    a.spec.rope.sequence_length = static_cast<uint64_t>(static_cast<int64_t>(d.positions_end) + by);
  a.said.positions_shift = by;
  out.push_back(std::move(a));
}

// positions: off by 1 to 8 either way, and by the offset the data's own angles give.
void shifted_positions(const DeclaredSpec& d, Alternatives& out) {
  for (int k = 1; k <= 8; ++k)
    for (const int by : {-k, k}) add_shift(d, by, out);
  if (d.estimated_shift && std::abs(*d.estimated_shift) > 8) add_shift(d, *d.estimated_shift, out);
}

std::vector<std::string> sections_flags(const std::vector<int>& order, bool interleaved) {
  return {fmt::format(R"(--rope-scaling '{{"mrope_section": [{}], "mrope_interleaved": {}}}')",
                      fmt::join(order, ", "), interleaved)};
}

// sections: M-RoPE with every section at the temporal ids (sglang#35345), the other interleaving,
// and each other order of the sections.
void mrope_sections(const DeclaredSpec& d, Alternatives& out) {
  const std::vector<int>& sections = d.spec.rope.mrope_section;
  if (!d.ids || d.ids->stream_count() != 3 || sections.empty()) return;
  SpecAlternative temporal = alternative(d, "sections",
                                         "every section takes the temporal ids (as sglang#35345: "
                                         "M-RoPE applied with the temporal positions only); no "
                                         "declaration states it",
                                         {});
  temporal.ids = *d.ids;
  temporal.ids->streams[1] = temporal.ids->streams[2] = temporal.ids->streams[0];
  out.push_back(std::move(temporal));
  const bool interleaved = d.spec.rope.mrope_interleaved;
  SpecAlternative other =
      alternative(d, "sections",
                  fmt::format("the sections are {}, not {}",
                              interleaved ? "contiguous (Qwen2-VL)" : "interleaved (Qwen3-VL)",
                              interleaved ? "interleaved" : "contiguous"),
                  sections_flags(sections, !interleaved));
  other.spec.rope.mrope_interleaved = !interleaved;
  out.push_back(std::move(other));
  std::vector<int> order = sections;
  std::sort(order.begin(), order.end());
  do {
    if (order == sections) continue;
    SpecAlternative a = alternative(d, "sections",
                                    fmt::format("the sections are [{}], not [{}]",
                                                fmt::join(order, ", "), fmt::join(sections, ", ")),
                                    sections_flags(order, interleaved));
    a.spec.rope.mrope_section = order;
    out.push_back(std::move(a));
  } while (std::next_permutation(order.begin(), order.end()));
}

// layer-type: the config's other layer types' parameters.
void other_layer_types(const DeclaredSpec& d, Alternatives& out) {
  if (!d.other_layer_types) return;
  for (const auto& [name, spec] : *d.other_layer_types) {
    SpecAlternative a = alternative(d, "layer-type",
                                    fmt::format("the {} are the {} layers' (base {:g}, {}), not "
                                                "the ones declared",
                                                d.rows, name, spec.base, describe(spec.rope)),
                                    {fmt::format("--layer-type {}", name)});
    a.spec = spec;
    a.spec.start = d.spec.start;
    out.push_back(std::move(a));
  }
}

// recipe: the recipe not applied (transformers#32330); amplitude: its attention factor left out
// (vllm PR#46280; readback_frequencies.cc reads back any other amplitude where sin is held).
void recipe_not_applied(const DeclaredSpec& d, Alternatives& out) {
  const TableSpec& s = d.spec;
  if (s.rope.type != RopeType::kDefault) {
    SpecAlternative a = alternative(
        d, "recipe", unscaled_detail(s.rope.type),
        {fmt::format("{} {}", d.width_flag, s.d_model), fmt::format("--base {:g}", s.base)});
    a.spec.rope = RopeScaling{};
    out.push_back(std::move(a));
  }
  if (attention_factor(s) != 1) {
    SpecAlternative a =
        alternative(d, "amplitude",
                    fmt::format("the recipe's attention factor {:.6g} was not applied (cos and sin "
                                "not multiplied by it, as vllm PR#46280); no declaration states it",
                                attention_factor(s)),
                    {});
    a.spec.rope.attention_factor = 1.0;
    out.push_back(std::move(a));
  }
}

// frequency-dtype: inv_freq rounded to bfloat16 or float16 before the angles (transformers#29496).
void rounded_frequencies(const DeclaredSpec& d, Alternatives& out) {
  const TableSpec& s = d.spec;
  if (s.rope.type != RopeType::kDefault || !s.rope.mrope_section.empty()) return;
  for (const Dtype t : {Dtype::kBFloat16, Dtype::kFloat16}) {
    SpecAlternative a = alternative(
        d, "frequency-dtype",
        fmt::format("the frequencies (inv_freq) were rounded to {} before the angles (as "
                    "transformers#29496): keep inv_freq in float32; no declaration states it",
                    name_of(t)),
        {});
    a.spec = with_rounded_frequencies(s, d.positions_end, t);
    out.push_back(std::move(a));
  }
}

// rotary-dim: the plain part b^(-2k/d) of the frequencies taken over the whole head (vllm#43676),
// or, for a proportional recipe, over the rotated dims alone (pegainfer#820).
void exponent_over_other_dims(const DeclaredSpec& d, Alternatives& out) {
  const TableSpec& s = d.spec;
  if (d.head_dim > s.d_model && s.rope.mrope_section.empty()) {
    TableSpec plain = s, over_head = s;
    plain.rope = over_head.rope = RopeScaling{};
    over_head.d_model = d.head_dim;
    SpecAlternative a = alternative(d, "rotary-dim",
                                    fmt::format("the frequencies' exponent is over the head's {} "
                                                "dims, not the rotary dimension {} (as vllm#43676, "
                                                "pegainfer#820); no declaration states it",
                                                d.head_dim, s.d_model),
                                    {});
    a.spec = with_frequencies(s, d.positions_end, [&](int k) {
      return frequency(s, k) * (frequency(over_head, k) / frequency(plain, k));
    });
    out.push_back(std::move(a));
  }
  const int rotated = rotated_pairs(s.rope, s.d_model);
  if (s.rope.type == RopeType::kProportional && rotated > 0 && 2 * rotated < s.d_model) {
    // b^(-2j/(2a)) for the rotated pairs, which is b'^(-2j/d) with b' = b^(d/2a).
    SpecAlternative a = alternative(d, "rotary-dim",
                                    fmt::format("the frequencies' exponent is over the {} rotated "
                                                "dims, not head_dim {} (as pegainfer#820); no "
                                                "declaration states it",
                                                2 * rotated, s.d_model),
                                    {});
    a.spec.base = std::pow(s.base, static_cast<double>(s.d_model) / (2 * rotated));
    out.push_back(std::move(a));
  }
}

// base: other common bases. A declaration without a config says the base; a table that should be
// a config's was built with the wrong one (no declaration of that config states it).
void other_bases(const DeclaredSpec& d, Alternatives& out) {
  const TableSpec& s = d.spec;
  for (const double base : {1e4, 1e5, 5e5, 1e6, 1e7}) {
    if (base == s.base || (!d.from_config && !is_plain(s))) continue;
    SpecAlternative a =
        d.from_config
            ? alternative(d, "base",
                          fmt::format("the {} were built with base {:g}, not the config's "
                                      "rope_theta {:g}; no declaration of this config states it",
                                      d.rows, base, s.base),
                          {})
            : alternative(d, "base", fmt::format("the base is {:g}, not {:g}", base, s.base),
                          {fmt::format("--base {:g}", base)});
    a.spec.base = base;
    out.push_back(std::move(a));
  }
}

using Generator = void (*)(const DeclaredSpec&, Alternatives&);

// Most specific first: among declarations that explain as much, the earlier is named.
constexpr Generator kGenerators[] = {
    shifted_positions,  read_back_positions, mrope_sections,      other_layer_types,
    recipe_not_applied, read_back_recipe,    rounded_frequencies, exponent_over_other_dims,
    other_bases,        read_back_fits};

}  // namespace

std::vector<SpecAlternative> spec_alternatives(const DeclaredSpec& d) {
  Alternatives out;
  for (const Generator generate : kGenerators) generate(d, out);
  return out;
}

}  // namespace pev::verify::diagnosis
