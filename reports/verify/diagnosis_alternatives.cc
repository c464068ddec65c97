// What the table and the rotation diagnoses share (reports/verify/diagnosis.h): how a declaration
// is chosen among the alternatives, and the alternatives both try (frequencies in another
// precision or of another formula, ids shifted, M-RoPE's sections).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "peverify/encoding/format.h"
#include "peverify/encoding/vocabulary.h"
#include "peverify/reports/verify/diagnosis.h"

namespace pev::reports {

namespace diagnosis {

const std::string& documented(const std::string& cause) {
  const std::vector<std::string>& words = vocabulary().diagnosis_causes;
  if (std::find(words.begin(), words.end(), cause) == words.end())
    throw std::logic_error("diagnosis cause '" + cause + "' is not in encoding/vocabulary.json");
  return cause;
}

Diagnosis choose(const std::vector<Alternative>& alternatives, uint64_t failing_as_declared,
                 const std::function<std::optional<uint64_t>(size_t)>& failing,
                 const std::string& sampled,
                 const std::function<Diagnosis(std::string)>& isolated) {
  std::vector<std::string> fields;
  for (const Alternative& a : alternatives)
    if (std::find(fields.begin(), fields.end(), a.cause) == fields.end()) fields.push_back(a.cause);
  const Alternative* best = nullptr;
  double best_explains = 0;
  for (const bool loosening : {false, true})
    for (size_t i = 0; i < alternatives.size(); ++i) {
      if (alternatives[i].loosens_claim != loosening || (best && best_explains == 1)) continue;
      std::optional<uint64_t> left;
      try {  // an alternative the oracle cannot evaluate explains nothing; the verdict stands
        left = failing(i);
      } catch (const std::exception&) {
      }
      if (!left || *left >= failing_as_declared) continue;
      const double explains = 1 - double(*left) / failing_as_declared;
      if (explains > best_explains) best = &alternatives[i], best_explains = explains;
    }
  if (!best || best_explains < kExplains)
    return isolated(fmt::format("{} other declarations ({}) tried {}: none passes",
                                alternatives.size(), fmt::join(fields, ", "), sampled));
  Diagnosis d;
  d.cause = documented(best->cause);
  d.matches = best->flags;
  d.explains = best_explains;
  d.detail = fmt::format(
      "{}: {} of the {} failing elements {}, pass under it", best->detail,
      best_explains == 1 ? std::string("every one") : fmt::format("{:.1f}%", 100 * best_explains),
      failing_as_declared, sampled);
  return d;
}

double rounded_to(double x, Dtype t) {
  const double ulp = ulp_of(x, t);
  return std::nearbyint(x / ulp) * ulp;
}

// LongRoPE's per-pair factors carry the ratio exact / rounded (its MPFR frequency is then the
// rounded one to within 2^-53 relative, far below any claim), with the attention factor 1 and
// one factor list for every length.
TableSpec with_frequencies(const TableSpec& s, uint64_t positions_end,
                           const std::function<double(int)>& w) {
  TableSpec r = s;
  r.rope = RopeScaling{};
  const TableSpec plain = r;  // LongRoPE divides the plain frequencies by its factors
  r.rope.type = RopeType::kLongRope;
  for (int k = 0; k < s.d_model / 2; ++k) r.rope.short_factor.push_back(frequency(plain, k) / w(k));
  r.rope.long_factor = r.rope.short_factor;
  r.rope.attention_factor = 1.0;
  r.rope.sequence_length = std::max<uint64_t>(positions_end, 1);
  r.rope.original_max_position = r.rope.sequence_length;
  return r;
}

TableSpec with_rounded_frequencies(const TableSpec& s, uint64_t positions_end, Dtype t) {
  return with_frequencies(
      s, positions_end, [&](int k) { return rounded_to(static_cast<float>(frequency(s, k)), t); });
}

std::string unscaled_detail(RopeType type) {
  return fmt::format(
      "the frequencies are the unscaled ones: the {} recipe was not applied{}", name_of(type),
      type == RopeType::kLlama3
          ? " (as transformers#32330: llama3 returned theta unchanged); declared without "
            "--model-config or --rope-scaling"
          : "; declared without --model-config or --rope-scaling");
}

std::optional<RowPositions> shifted(const RowPositions& p, int by) {
  RowPositions out = p;
  for (std::vector<uint64_t>& stream : out.streams)
    for (uint64_t& id : stream) {
      if (by < 0 && id < static_cast<uint64_t>(-by)) return std::nullopt;
      id += static_cast<uint64_t>(by);
    }
  return out;
}

std::vector<SectionAlternative> section_alternatives(const RopeScaling& rope,
                                                     const RowPositions& p) {
  std::vector<SectionAlternative> out;
  const std::vector<int>& sections = rope.mrope_section;
  if (p.stream_count() != 3 || sections.empty()) return out;
  const auto flags = [](const std::vector<int>& order, bool interleaved) {
    return std::vector{
        fmt::format(R"(--rope-scaling '{{"mrope_section": [{}], "mrope_interleaved": {}}}')",
                    fmt::join(order, ", "), interleaved)};
  };
  RowPositions temporal = p;
  temporal.streams[1] = temporal.streams[2] = temporal.streams[0];
  out.push_back({{"sections",
                  "every section takes the temporal ids (as sglang#35345: M-RoPE applied with "
                  "the temporal positions only); no declaration states it",
                  {}},
                 std::move(temporal),
                 rope});
  SectionAlternative other{
      {"sections",
       fmt::format("the sections are {}, not {}",
                   rope.mrope_interleaved ? "contiguous (Qwen2-VL)" : "interleaved (Qwen3-VL)",
                   rope.mrope_interleaved ? "interleaved" : "contiguous"),
       flags(sections, !rope.mrope_interleaved)},
      std::nullopt,
      rope};
  other.rope.mrope_interleaved = !rope.mrope_interleaved;
  out.push_back(std::move(other));
  std::vector<int> order = sections;
  std::sort(order.begin(), order.end());
  do {
    if (order == sections) continue;
    SectionAlternative a{{"sections",
                          fmt::format("the sections are [{}], not [{}]", fmt::join(order, ", "),
                                      fmt::join(sections, ", ")),
                          flags(order, rope.mrope_interleaved)},
                         std::nullopt,
                         rope};
    a.rope.mrope_section = order;
    out.push_back(std::move(a));
  } while (std::next_permutation(order.begin(), order.end()));
  return out;
}

}  // namespace diagnosis

}  // namespace pev::reports
