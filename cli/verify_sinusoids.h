// `peverify verify` for the other sinusoidal tables (docs/features.md §16): --timesteps for a
// diffusion timestep embedding, --rope-axes for multi-axis RoPE, --alibi for ALiBi's slopes.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "peverify/cli/table_options.h"
#include "peverify/encoding/claim.h"
#include "peverify/verify/sinusoids/declarations.h"

namespace pev::cli {

struct SinusoidOptions {
  std::string timesteps;  // a .npy of one timestep per row
  std::string timestep_recipe;
  std::string rope_axes;  // a preset or d0,d1,...
  bool alibi = false;
  double alibi_max_bias = 8;
  // Whether --layout and --alibi-max-bias were given (a timestep table has its own layout).
  CLI::Option* layout_option = nullptr;
  CLI::Option* max_bias_option = nullptr;
  bool requested() const { return !timesteps.empty() || !rope_axes.empty() || alibi; }
  // A flag of these tables given without the one it belongs to: UsageError.
  void refuse_orphans() const;
};

void add_sinusoid_options(CLI::App& app, SinusoidOptions& o);

// What the rest of verify's options say, as the sinusoidal tables use them.
struct SinusoidRun {
  std::string file, tensor, json;
  std::optional<Dtype> dtype;
  const TableOptions* table = nullptr;
  Claim claim;
  int threads = 0;
};

// A .npy of numbers (tables/number_array.h) as the sinusoid checks take them.
verify::sinusoids::Numbers numbers_of(const std::string& path);

// Flags of the Transformer's tables that say nothing about these tables (`mode` names the one
// given, `width_flag` the width's flag in that command): UsageError, one line. `axes`: multi-axis
// RoPE, which takes --base and --positions.
void refuse_table_flags(const TableOptions& t, const std::string& mode, bool axes,
                        const char* width_flag = "--d-model");

// Runs the check the options ask for and returns the exit code; UsageError or ConfigError for a
// flag of the Transformer's tables given with one of these.
int run_sinusoid_verify(const SinusoidOptions& o, const SinusoidRun& run);

}  // namespace pev::cli
