// What the table and the rotation diagnoses share (verify/diagnosis.h): how a declaration
// is chosen among the alternatives, and the helpers the alternatives are built with (frequencies
// in another precision or of another formula, ids shifted, a position read from the angles).
// The alternatives themselves are spec_alternatives.cc's catalogue.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "peverify/encoding/format.h"
#include "peverify/encoding/rope.h"
#include "peverify/encoding/sinusoids/timestep.h"  // round_to
#include "peverify/encoding/vocabulary.h"
#include "peverify/verify/diagnosis.h"

namespace pev::verify {

namespace diagnosis {

const std::string& documented(const std::string& cause) {
  const std::vector<std::string>& words = vocabulary().diagnosis_causes;
  if (std::find(words.begin(), words.end(), cause) == words.end())
    throw std::logic_error("diagnosis cause '" + cause + "' is not in encoding/vocabulary.json");
  return cause;
}

Diagnosis choose(const std::vector<Alternative>& alternatives, uint64_t failing_as_declared,
                 const std::function<std::optional<uint64_t>(size_t, uint64_t)>& failing,
                 const std::string& sampled,
                 const std::function<Diagnosis(std::string)>& isolated) {
  std::vector<std::string> fields;
  for (const Alternative& a : alternatives)
    if (std::find(fields.begin(), fields.end(), a.cause) == fields.end()) fields.push_back(a.cause);
  const Alternative* best = nullptr;
  double best_explains = 0;
  // An alternative is named only when it leaves at most 1 - kExplains of the failures (rounded
  // up: the explains test below decides), and replaces the best only when it leaves fewer.
  uint64_t limit = static_cast<uint64_t>(std::ceil((1 - kExplains) * double(failing_as_declared)));
  for (const bool loosening : {false, true})
    for (size_t i = 0; i < alternatives.size(); ++i) {
      if (alternatives[i].loosens_claim != loosening || (best && best_explains == 1)) continue;
      std::optional<uint64_t> left;
      try {  // an alternative the oracle cannot evaluate explains nothing; the verdict stands
        left = failing(i, limit);
      } catch (const std::exception&) {
      }
      if (!left || *left > limit || *left >= failing_as_declared) continue;
      if (*left > 0) limit = *left - 1;
      const double explains = 1 - double(*left) / failing_as_declared;
      if (explains > best_explains) best = &alternatives[i], best_explains = explains;
    }
  if (!best || best_explains < kExplains)
    return isolated(fmt::format("{} other declarations ({}) tried {}: none passes",
                                alternatives.size(), fmt::join(fields, ", "), sampled));
  Diagnosis d;
  d.cause = documented(best->cause);
  d.matches = best->flags;
  d.positions_shift = best->positions_shift;
  d.explains = best_explains;
  d.detail = fmt::format(
      "{}: {} of the {} failing elements {}, pass under it", best->detail,
      best_explains == 1 ? std::string("every one") : fmt::format("{:.1f}%", 100 * best_explains),
      failing_as_declared, sampled);
  return d;
}

std::string first_places(const std::vector<properties::PropertyVerdict>& verdicts,
                         const std::function<std::string(const properties::Finding&)>& name) {
  std::vector<std::string> seen;
  for (const properties::PropertyVerdict& v : verdicts)
    for (const properties::Finding& f : v.worst)
      if (!v.holds && seen.size() < 3) {
        std::string at = name(f);
        if (std::find(seen.begin(), seen.end(), at) == seen.end()) seen.push_back(std::move(at));
      }
  return fmt::format("{}", fmt::join(seen, ", "));
}

double rounded_to(double x, Dtype t) { return round_to(x, 0, t); }

// LongRoPE's per-pair factors carry the ratio exact / rounded (its MPFR frequency is then the
// rounded one to within 2^-53 relative, far below any claim), with the attention factor 1 and
// one factor list for every length.
TableSpec with_frequencies(const TableSpec& s, uint64_t positions_end,
                           const std::function<double(int)>& w) {
  TableSpec r = s;
  r.rope = RopeScaling{};
  r.schedule = Schedule::kPaper;  // LongRoPE takes the paper's schedule; the factors carry the rest
  const TableSpec plain = r;      // LongRoPE divides the plain frequencies by its factors
  r.rope.type = RopeType::kLongRope;
  for (int k = 0; k < s.d_model / 2; ++k) r.rope.short_factor.push_back(frequency(plain, k) / w(k));
  r.rope.long_factor = r.rope.short_factor;
  r.rope.attention_factor = attention_factor(s);  // the frequencies change, not the amplitude
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

std::optional<RowPositions> shifted(const RowPositions& p, int64_t by) {
  RowPositions out = p;
  for (std::vector<uint64_t>& stream : out.streams)
    for (uint64_t& id : stream) {
      if (by < 0 && id < static_cast<uint64_t>(-by)) return std::nullopt;
      id += static_cast<uint64_t>(by);
      if (id > kMaxPosition) return std::nullopt;
    }
  return out;
}

std::vector<uint64_t> sampled_blocks(uint64_t rows, const std::vector<uint64_t>& worst) {
  std::vector<uint64_t> firsts;
  const uint64_t last_first = rows > kBlockRows ? rows - kBlockRows : 0;
  for (int i = 0; i < kBlocks; ++i) {
    const double at = std::pow(static_cast<double>(last_first + 1), i / double(kBlocks - 1)) - 1;
    firsts.push_back(std::min(last_first, static_cast<uint64_t>(at)));
  }
  for (const uint64_t row : worst)
    if (row < rows) firsts.push_back(std::min(last_first, row));
  std::sort(firsts.begin(), firsts.end());
  std::vector<uint64_t> out;
  for (const uint64_t first : firsts)
    if (out.empty() || first >= out.back() + kBlockRows) out.push_back(first);
  return out;
}

std::optional<int64_t> estimated_shift(std::vector<double> offsets) {
  // Half the estimates at least must agree on one integer offset: a shift moves every row alike.
  std::erase_if(offsets, [](double o) { return !std::isfinite(o); });
  if (offsets.size() < 3) return std::nullopt;
  std::sort(offsets.begin(), offsets.end());
  const double median = offsets[offsets.size() / 2];
  if (!std::isfinite(median) || std::fabs(median) > 0x1p52) return std::nullopt;
  const int64_t shift = std::llround(median);
  const auto agree = std::count_if(offsets.begin(), offsets.end(), [&](double o) {
    return std::fabs(o - static_cast<double>(shift)) < 0.5;
  });
  if (2 * static_cast<size_t>(agree) < offsets.size()) return std::nullopt;
  return shift;
}

std::optional<int64_t> shift_of_rows(const readback::Observations& o, const readback::ReadBack& r) {
  std::vector<double> offsets;
  for (size_t i = 0; i < o.rows.size(); ++i) {
    if (!r.rows[i].position) continue;
    const double declared = static_cast<double>(o.rows[i].declared);
    double offset = *r.rows[i].position - declared;
    if (o.rows[i].s.empty()) {
      if (declared >= 0.375 * r.period) continue;
    } else {
      offset = std::remainder(offset, r.period);
    }
    offsets.push_back(offset);
  }
  return estimated_shift(std::move(offsets));
}

}  // namespace diagnosis

}  // namespace pev::verify
