#include "peverify/encoding/spec.h"

#include <cmath>
#include <string>

namespace pev {

int table_width(const TableSpec& spec) {
  switch (spec.layout) {
    case Layout::kRopeCos:
    case Layout::kRopeSin:
      return spec.d_model / 2;
    default:
      return spec.d_model;
  }
}

bool holds_sin_and_cos(Layout layout) {
  return layout == Layout::kInterleaved || layout == Layout::kHalves ||
         layout == Layout::kRopeCosSin || layout == Layout::kPolar;
}

Column column_at(const TableSpec& spec, int column) {
  const int half = spec.d_model / 2;
  switch (spec.layout) {
    case Layout::kInterleaved:
      return {column / 2, column % 2 == 0};
    case Layout::kHalves:
      return {column % half, column < half};
    case Layout::kRopeCos:
      return {column, false};
    case Layout::kRopeSin:
      return {column, true};
    case Layout::kRopeCosDup:
      return {column % half, false};
    case Layout::kRopeSinDup:
      return {column % half, true};
    case Layout::kRopeCosPairs:
      return {column / 2, false};
    case Layout::kRopeSinPairs:
      return {column / 2, true};
    case Layout::kRopeCosSin:
      return {column % half, column >= half};
    case Layout::kPolar:
      return {column / 2, column % 2 == 1};
  }
  return {0, true};
}

FrequencyExponent frequency_exponent(const TableSpec& spec, int pair) {
  if (spec.schedule == Schedule::kT2T) return {-int64_t{pair}, spec.d_model / 2 - 1};
  return {-2 * int64_t{pair}, spec.d_model};
}

double frequency(const TableSpec& spec, int pair) {
  if (!is_plain(spec)) return rope_double::frequency(spec.rope, spec.base, spec.d_model, pair);
  const FrequencyExponent e = frequency_exponent(spec, pair);
  return std::pow(spec.base, static_cast<double>(e.numerator) / static_cast<double>(e.denominator));
}

double attention_factor(const TableSpec& spec) { return rope_double::attention_factor(spec.rope); }

std::optional<std::string> validate(const TableSpec& spec) {
  if (spec.d_model < 2) return "d_model must be >= 2, got " + std::to_string(spec.d_model);
  if (spec.d_model % 2 != 0) return "d_model must be even, got " + std::to_string(spec.d_model);
  if (spec.schedule == Schedule::kT2T && spec.d_model < 4)
    return "the t2t schedule needs d_model >= 4 (it divides by d/2 - 1)";
  if (!std::isfinite(spec.base) || !(spec.base > 1.0))
    return "base must be a finite number > 1, got " + std::to_string(spec.base);
  if (spec.start > kMaxPosition)
    return "start position " + std::to_string(spec.start) + " exceeds 2^53";
  if (!is_plain(spec)) {
    if (spec.schedule != Schedule::kPaper)
      return std::string("rotary recipes scale the paper schedule's frequencies, not t2t's");
    if (auto err = validate_rope(spec.rope, spec.d_model)) return err;
  }
  return std::nullopt;
}

std::optional<std::string> validate_range(const TableSpec& spec, uint64_t count) {
  if (auto err = validate(spec)) return err;
  if (count == 0) return std::string("the number of positions must be >= 1");
  if (count - 1 > kMaxPosition - spec.start)
    return "last position start + positions - 1 exceeds 2^53";
  return std::nullopt;
}

const std::vector<Layout>& all_layouts() {
  static const std::vector<Layout> all = {
      Layout::kInterleaved, Layout::kHalves,     Layout::kRopeCos,      Layout::kRopeSin,
      Layout::kRopeCosDup,  Layout::kRopeSinDup, Layout::kRopeCosPairs, Layout::kRopeSinPairs,
      Layout::kRopeCosSin,  Layout::kPolar};
  return all;
}

std::string_view name_of(Schedule s) { return s == Schedule::kT2T ? "t2t" : "paper"; }

std::string_view name_of(Layout l) {
  switch (l) {
    case Layout::kInterleaved:
      return "interleaved";
    case Layout::kHalves:
      return "halves";
    case Layout::kRopeCos:
      return "rope-cos";
    case Layout::kRopeSin:
      return "rope-sin";
    case Layout::kRopeCosDup:
      return "rope-cos-dup";
    case Layout::kRopeSinDup:
      return "rope-sin-dup";
    case Layout::kRopeCosPairs:
      return "rope-cos-pairs";
    case Layout::kRopeSinPairs:
      return "rope-sin-pairs";
    case Layout::kRopeCosSin:
      return "rope-cos-sin";
    case Layout::kPolar:
      return "polar";
  }
  return "?";
}

std::string_view name_of(Dtype t) {
  switch (t) {
    case Dtype::kFloat64:
      return "float64";
    case Dtype::kFloat32:
      return "float32";
    case Dtype::kFloat16:
      return "float16";
    case Dtype::kBFloat16:
      return "bfloat16";
  }
  return "?";
}

std::optional<Schedule> parse_schedule(std::string_view name) {
  for (Schedule s : {Schedule::kPaper, Schedule::kT2T})
    if (name == name_of(s)) return s;
  return std::nullopt;
}

std::optional<Layout> parse_layout(std::string_view name) {
  for (Layout l : all_layouts())
    if (name == name_of(l)) return l;
  return std::nullopt;
}

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (Dtype t : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16})
    if (name == name_of(t)) return t;
  return std::nullopt;
}

}  // namespace pev
