// `peverify verify`: every property of the suite on a user's table, with the worst elements.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "encoding/claim.h"
#include "encoding/spec.h"
#include "measure/sampling.h"
#include "properties/checks.h"

namespace pev::reports {

// A table already in memory (read from a file, or made by an implementation).
struct TableInput {
  std::string name;         // the file, as the user gave it
  std::string description;  // "npy <f4 [4096, 512]"
  Dtype dtype = Dtype::kFloat32;
  uint64_t rows = 0;
  std::vector<double> values;  // rows x table_width(spec), widened exactly
};

struct VerifyOptions {
  TableSpec spec;  // d_model, base, schedule, layout, start as the user declared them
  Claim budget;
  // The oracle checks every element up to this many (131072 x 4096 takes ~1 minute on 2 cores),
  // and stratified samples beyond.
  uint64_t exhaustive_limit = uint64_t{1} << 30;
};

struct VerifyResult {
  std::string table, description;
  TableSpec spec;
  Claim budget;
  std::vector<properties::Verdict> verdicts;  // bounded, unique, shift, growth, oracle
  std::string oracle_coverage;                // "exhaustive: N elements" or "stratified: ..."
  bool holds() const;
};

VerifyResult verify_table(TableInput table, const VerifyOptions& options);

nlohmann::json to_json(const VerifyResult& r);
// The table's rotary recipe as JSON: its type, attention factor and parameters.
nlohmann::json rope_json(const TableSpec& spec);
// The human summary: one line per property, then the worst elements of the failing ones.
std::string to_text(const VerifyResult& r);

// Rows [first, first + count) sampled for the oracle when the table is too big for every element:
// the first 4096 rows whole, then 64 blocks of 16 rows on a log scale over the rest.
std::vector<measure::RowBlock> stratified_blocks(uint64_t rows);

}  // namespace pev::reports
