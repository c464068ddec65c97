// The options that describe a table, shared by every subcommand that makes or reads one.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "cli/rotary_options.h"
#include "encoding/spec.h"

namespace pev::cli {

struct TableOptions {
  int d_model = 0;
  int64_t positions = 0;  // signed: resolve_computed refuses a negative one in words
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

// The validated spec (throws UsageError with the reason); also checks that the table fits in
// memory limits and that the output's directory is writable, so that a long computation does
// not end in an error.
TableSpec table_spec_of(const TableOptions& o);

// Throws UsageError unless `path` can be created (its directory exists and is writable).
void check_writable(const std::string& path);

}  // namespace pev::cli
