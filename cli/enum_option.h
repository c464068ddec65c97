// Enum options, parsed by CLI11 itself: it checks the name, lists the choices in --help and
// converts to the enum. The names come from the libraries' name_of, so each is spelled once.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/spec.h"
#include "peverify/oracle/engine.h"

namespace pev::cli {

// Every value an option takes, in the order --help lists them.
inline constexpr std::array kSchedules = {Schedule::kPaper, Schedule::kT2T};
inline constexpr std::array kDtypes = {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16,
                                       Dtype::kFloat64};
inline constexpr std::array kEngines = {oracle::EngineKind::kFast, oracle::EngineKind::kMpfr};
inline constexpr std::array kBudgets = {Claim::Kind::kModel, Claim::Kind::kStrict,
                                        Claim::Kind::kFaithful};

// The layouts are encoding's list (all_layouts()), so a new layout reaches every option.

// The transformer for an option of type Enum (or std::optional<Enum>) that takes these values:
//   app.add_option("--layout", layout, "...")->transform(one_of(all_layouts()));
template <typename Values>
CLI::Validator one_of(const Values& values) {
  using Enum = typename Values::value_type;
  std::vector<std::string> names;
  std::map<std::string, Enum> by_name;
  for (Enum v : values) {
    names.emplace_back(name_of(v));
    by_name.emplace(name_of(v), v);
  }
  // The Transformer alone would let a number through to the enum's integer conversion, and
  // CheckedTransformer accepts numbers too: IsMember rejects them, and its message names the
  // value and the choices.
  const CLI::IsMember known(names);
  return (known & CLI::Transformer(by_name)).description(known.get_description());
}

}  // namespace pev::cli
