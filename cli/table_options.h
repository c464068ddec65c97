// The options that describe a table, shared by every subcommand that makes or reads one.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "peverify/cli/rotary_options.h"
#include "peverify/encoding/positions.h"
#include "peverify/encoding/spec.h"

namespace pev::cli {

struct TableOptions {
  int d_model = 0;
  // A count of rows from --start, or a .npy of position ids (one per row; [3, N] for M-RoPE).
  std::string positions;
  int64_t start = 0;
  double base = 10000.0;
  Schedule schedule = Schedule::kPaper;
  Layout layout = Layout::kInterleaved;
  std::string output;
  RotaryOptions rotary;
  // Whether --d-model and --base were given (a model config then must agree with them).
  CLI::Option* d_model_option = nullptr;
  CLI::Option* base_option = nullptr;
};

// --d-model, --positions, --start, --base, --schedule, --layout, --model-config, --rope-scaling
// and -o.
void add_table_options(CLI::App& app, TableOptions& o);

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
