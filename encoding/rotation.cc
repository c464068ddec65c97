#include "peverify/encoding/rotation.h"

#include <fmt/format.h>

namespace pev {

namespace {

std::pair<int, int> dims_of(PairConvention c, int d, int pair) {
  if (c == PairConvention::kHalves) return {pair, pair + d / 2};
  return {2 * pair, 2 * pair + 1};
}

}  // namespace

std::pair<int, int> rotated_dims(const RotationSpec& spec, int pair) {
  return dims_of(spec.pairs, spec.table.d_model, pair);
}

PairConvention output_convention(const RotationSpec& spec) {
  return spec.output_pairs.value_or(spec.pairs);
}

std::pair<int, int> output_dims(const RotationSpec& spec, int pair) {
  return dims_of(output_convention(spec), spec.table.d_model, pair);
}

std::optional<std::string> validate(const RotationSpec& spec) {
  if (auto err = validate(spec.table)) return err;
  if (spec.head_dim < spec.table.d_model)
    return fmt::format("head_dim {} is smaller than the rotary dimension {}", spec.head_dim,
                       spec.table.d_model);
  return std::nullopt;
}

std::string_view name_of(PairConvention c) {
  return c == PairConvention::kHalves ? "halves" : "interleaved";
}

std::optional<PairConvention> parse_pair_convention(std::string_view name) {
  if (name == "halves" || name == "rotate-half" || name == "neox") return PairConvention::kHalves;
  if (name == "interleaved" || name == "gptj") return PairConvention::kInterleaved;
  return std::nullopt;
}

}  // namespace pev
