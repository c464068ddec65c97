#include "peverify/encoding/claim.h"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace pev {

extern const char* const kClaimsJson;  // encoding/claims.json, compiled in (claims_data.cc.in)

namespace {

// Numbers may be written as hexadecimal floats ("0x1p-28") where a power of two says more.
double number(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  const std::string s = j.get<std::string>();
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') throw std::logic_error("claims.json: not a number: " + s);
  return x;
}

ClaimConstants::Consistency consistency_of(const nlohmann::json& j) {
  ClaimConstants::Consistency c{};
  c.group_rows = j.at("group_rows").get<int>();
  c.groups_each_side = j.at("groups_each_side").get<int>();
  c.factor = number(j.at("factor"));
  for (const Dtype t : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16})
    c.resolution_ulps[static_cast<size_t>(t)] = number(j.at("resolution_ulps").at(name_of(t)));
  return c;
}

ClaimConstants::Limits limits_of(const nlohmann::json& j) {
  ClaimConstants::Limits l{};
  l.max_base = number(j.at("max_base"));
  l.anchor_interval = j.at("anchor_interval").get<uint64_t>();
  for (const Dtype t : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16})
    l.recurrence_max_position[static_cast<size_t>(t)] =
        j.at("recurrence_max_position").at(name_of(t)).get<uint64_t>();
  const nlohmann::json& float16 = j.at("float16_compute");
  l.float16_max_base = number(float16.at("max_base"));
  l.float16_min_frequency = number(float16.at("min_frequency"));
  l.float16_max_position = float16.at("max_position").get<uint64_t>();
  l.precise_max_position = j.at("precise_max_position").get<uint64_t>();
  return l;
}

ClaimConstants read_constants() {
  const nlohmann::json j = nlohmann::json::parse(kClaimsJson);
  const nlohmann::json& model = j.at("model");
  return {number(model.at("c").at("direct")),
          number(model.at("c").at("cuda_accurate")),
          number(model.at("c").at("cuda_fast")),
          number(model.at("output_ulps").at("nearest_even")),
          number(model.at("output_ulps").at("truncate")),
          number(model.at("pair_recurrence_ulps")),
          number(j.at("strict").at("ulps")),
          number(j.at("strict").at("slack_ulps")),
          number(j.at("faithful").at("below_ulps")),
          {number(j.at("vacuous_budget").at(0)), number(j.at("vacuous_budget").at(1))},
          consistency_of(j.at("consistency")),
          limits_of(j.at("limits"))};
}

}  // namespace

const ClaimConstants& claim_constants() {
  static const ClaimConstants constants = read_constants();
  return constants;
}

Claim Claim::model(Dtype compute, double c, double output_ulps) {
  Claim claim;
  claim.kind = Kind::kModel;
  claim.c = c;
  claim.u = unit_roundoff(compute);
  claim.output_ulps = output_ulps;
  return claim;
}

Claim Claim::model(Dtype compute) {
  return model(compute, claim_constants().direct_c, claim_constants().nearest_output_ulps);
}

Claim Claim::ggml() {
  Claim claim = model(Dtype::kFloat32);
  claim.pair_step_ulps = claim_constants().pair_recurrence_ulps;
  return claim;
}

Claim Claim::faithful() {
  Claim claim;
  claim.kind = Kind::kFaithful;
  return claim;
}

Claim Claim::strict() {
  Claim claim;
  claim.kind = Kind::kStrict;
  return claim;
}

std::string Claim::describe() const {
  switch (kind) {
    case Kind::kModel:
      return fmt::format("model(C={:g}, u=2^{}{}{})", c, std::ilogb(u),
                         output_ulps != claim_constants().nearest_output_ulps
                             ? fmt::format(", {:g} ulp for the output", output_ulps)
                             : "",
                         pair_step_ulps > 0
                             ? fmt::format(", +{:g}u per pair of ggml's recurrence", pair_step_ulps)
                             : "");
    case Kind::kFaithful:
    case Kind::kStrict:
      return std::string(name_of(kind));
  }
  return "?";
}

std::string_view name_of(Claim::Kind kind) {
  switch (kind) {
    case Claim::Kind::kModel:
      return "model";
    case Claim::Kind::kFaithful:
      return "faithful";
    case Claim::Kind::kStrict:
      return "strict";
  }
  return "?";
}

}  // namespace pev
