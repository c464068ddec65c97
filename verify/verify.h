// `peverify verify`: every property of the suite on a user's table, with the worst elements.
// The table is read in blocks of rows and every element is judged against its exact value in one
// pass (docs/architecture.md §8), so memory does not grow with the table.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/positions.h"
#include "peverify/encoding/spec.h"
#include "peverify/measure/judge.h"
#include "peverify/properties/checks.h"

namespace pev::verify {

// A user's table: read on demand, or already in memory.
struct TableInput {
  std::string name;         // the file, as the user gave it
  std::string description;  // "npy <f4 [4096, 512]"
  Dtype dtype = Dtype::kFloat32;
  uint64_t rows = 0;
  // read(first, n, out): rows [first, first + n) widened exactly, row-major; safe to call from
  // several threads at once. Empty: the rows are `values`.
  std::function<void(uint64_t first, uint64_t n, double* out)> read;
  std::vector<double> values;  // rows x table_width(spec), when `read` is empty
};

// The other function's cache of the same rows (the sin cache beside a cos cache, or the
// reverse: `verify COS --sin SIN`), which the diagnosis's read-back takes its missing half from:
// with both, the sign of sin, the amplitude and every row's position read back unambiguously.
// Judged by a verify of its own, never by this one.
struct CompanionTable {
  std::string name;
  Layout layout = Layout::kRopeSinDup;  // its layout, of the same rotary dimension
  // read(file_row, out): one row, widened exactly.
  std::function<void(uint64_t file_row, double* out)> read;
};

struct VerifyOptions {
  TableSpec spec;  // d_model, base, schedule, layout, start as the user declared them
  // Row r at these position ids, not spec.start + r (`--positions`). The recipe's sequence length
  // stays the spec's: the caller sets it from every id of the table (set_sequence_length), which
  // a part of the table (a gate band) does not hold.
  std::optional<RowPositions> positions;
  std::string positions_name;  // how the verdict names them ("positions.npy")
  std::string source;          // where the rotary parameters came from (rotary_source), or empty
  // The declaration under each other layer type of the config (layer_type_specs), tried by the
  // diagnosis.
  std::vector<std::pair<std::string, TableSpec>> other_layer_types;
  // The config's head_dim, where its rotary dimension (spec.d_model) is less (partial rotary);
  // 0 otherwise. The diagnosis tries the exponent over it.
  int head_dim = 0;
  std::optional<CompanionTable> companion;  // the other function's cache, for the read-back
  Claim claim;
  bool column_max_abs = false;  // measure VerifyResult::column_max_abs (the gate)
  bool diagnose = true;         // name a failing verdict's cause (VerifyResult::diagnosis)
  int threads = 0;              // 0: one per hardware thread
  uint64_t block_elements = uint64_t{1} << 15;  // elements per block of the pass (at least a row)
  // Row hashes the uniqueness check holds at once (16 bytes each); a table of more rows is
  // checked for repeats in several passes.
  uint64_t unique_rows_per_pass = uint64_t{1} << 25;
};

// What a failing verdict's data does match (verify/diagnosis.h): `cause` one word of the
// design's vocabulary (§8.1), `matches` the flags of the declaration under which the sampled rows
// pass, `explains` the share of the sampled failing elements it accounts for.
struct Diagnosis {
  std::string cause, detail;
  std::vector<std::string> matches;
  double explains = 0;
  int64_t positions_shift = 0;  // cause positions: the data's positions minus the declared ones
};
nlohmann::json to_json(const Diagnosis& d);
std::string to_text(const Diagnosis& d);  // "diagnosis: layout: ..." (one line, no newline)

struct VerifyResult {
  std::string table, description;
  TableSpec spec;
  Claim claim;
  Dtype dtype = Dtype::kFloat32;
  // bounded, unique, shift, growth, oracle, consistent
  std::vector<properties::PropertyVerdict> verdicts;
  std::vector<double> column_max_abs;  // per column, when VerifyOptions::column_max_abs asked
  std::optional<Diagnosis> diagnosis;  // a failing verdict's, when VerifyOptions::diagnose
  std::string oracle_coverage;         // "exhaustive: every one of N elements"
  std::string positions;    // "positions.npy: 3 streams x 4096 rows, ids 0 .. 1203", or empty
  std::string source;       // the model config and the part of it read, or empty
  measure::Figures oracle;  // the oracle's figures over every element
  // Seconds per stage (read, oracle values, each property), CPU seconds summed over the threads
  // for the stages of the pass: what the benchmark reports as each property's share.
  std::vector<std::pair<std::string, double>> seconds;
  bool holds() const;
};

VerifyResult verify_table(TableInput table, const VerifyOptions& options);

nlohmann::json to_json(const VerifyResult& r);
// The claim as JSON: its kind, constants and description.
nlohmann::json claim_json(const Claim& claim);
// The table's rotary recipe as JSON: its type, attention factor and parameters.
nlohmann::json rope_json(const TableSpec& spec);
// The human summary: one line per property and its notes, then the worst elements of the
// failing ones.
std::string to_text(const VerifyResult& r);

}  // namespace pev::verify
