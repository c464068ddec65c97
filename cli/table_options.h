// The options that describe a table, shared by every subcommand that makes or reads one (or
// checks a rotation by one): each registers them through add_table_options.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "peverify/cli/rotary_options.h"
#include "peverify/encoding/positions.h"
#include "peverify/encoding/spec.h"
#include "peverify/encoding/vocabulary.h"

namespace pev::cli {

struct TableOptions {
  int d_model = 0;  // verify-rotary's --rotary-dim
  // A count of rows from --start, or a .npy of position ids (one per row; [3, N] for M-RoPE);
  // for a table read or rotated, only ids.
  std::string positions;
  int64_t start = 0;
  double base = default_base();
  Schedule schedule = Schedule::kPaper;
  Layout layout = Layout::kInterleaved;
  std::string output;
  RotaryOptions rotary;
  // Whether --d-model (--rotary-dim) and --base were given (a model config then must agree).
  CLI::Option* d_model_option = nullptr;
  CLI::Option* base_option = nullptr;
};

// What the table is to the command: which flags describe it, in what order --help lists them,
// and in what words.
enum class TableUse {
  // oracle, generate: --d-model, --positions (a count or ids), --start, --base, --schedule,
  // --layout, --model-config, --layer-type, --rope-scaling and -o.
  kMade,
  // verify, a user's table: --d-model (else from its width), --base, the rotary flags, --layout,
  // --start, --positions (ids, for rows that are not consecutive positions), --schedule.
  kRead,
  // verify-rotary, q or k: --rotary-dim (in d_model), --base, the rotary flags, --start and
  // --positions (per token, or per sequence index).
  kRotated,
};

void add_table_options(CLI::App& app, TableOptions& o, TableUse use = TableUse::kMade);

// The rotary request the options make: --d-model and --base only where they were given.
RotaryRequest rotary_request(const TableOptions& o);

// What the options describe: the spec, its row count, and the position ids when --positions
// named a file (the recipe's sequence length is then the largest id + 1).
struct TableRows {
  TableSpec spec;
  uint64_t rows = 0;
  std::optional<RowPositions> ids;
};

// The validated table (throws UsageError or ConfigError with the reason); also checks that the
// table fits in memory limits and that the output's directory is writable, so that a long
// computation does not end in an error.
TableRows table_rows_of(const TableOptions& o);

// Throws UsageError unless `path` can be created (its directory exists and is writable).
void check_writable(const std::string& path);

}  // namespace pev::cli
