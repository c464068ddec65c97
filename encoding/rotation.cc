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

PairConvention other_convention(PairConvention c) {
  return c == PairConvention::kHalves ? PairConvention::kInterleaved : PairConvention::kHalves;
}

std::vector<Pairing> other_pairings(const RotationSpec& spec) {
  const PairConvention in = spec.pairs, out = output_convention(spec);
  std::vector<Pairing> all;
  for (const auto& [pairs, output] : {std::pair{other_convention(in), other_convention(out)},
                                      {in, other_convention(out)},
                                      {other_convention(in), out}}) {
    Pairing p{pairs, output, {}};
    if (pairs != in) p.flags.push_back(fmt::format("--pairs {}", name_of(pairs)));
    if (output != pairs || spec.output_pairs)
      p.flags.push_back(fmt::format("--output-pairs {}", name_of(output)));
    all.push_back(std::move(p));
  }
  return all;
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
