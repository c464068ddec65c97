// What every subcommand shares: how it registers, and how it reports bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <vector>

namespace pev::cli {

// Bad usage or bad input: printed as one line "peverify: error: ...", exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit codes of every subcommand (docs/architecture.md §8).
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternalError = 3;

struct Command {
  CLI::App* app;
  std::function<int()> run;  // called when app was the parsed subcommand
};

void add_oracle_command(CLI::App& root, std::vector<Command>& commands);
void add_generate_command(CLI::App& root, std::vector<Command>& commands);
void add_list_command(CLI::App& root, std::vector<Command>& commands);
void add_bench_command(CLI::App& root, std::vector<Command>& commands);
void add_verify_command(CLI::App& root, std::vector<Command>& commands);
void add_verify_rotary_command(CLI::App& root, std::vector<Command>& commands);
void add_check_command(CLI::App& root, std::vector<Command>& commands);
void add_report_command(CLI::App& root, std::vector<Command>& commands);
void add_recommend_command(CLI::App& root, std::vector<Command>& commands);
void add_sweep_command(CLI::App& root, std::vector<Command>& commands);
void add_measure_cuda_command(CLI::App& root, std::vector<Command>& commands);

}  // namespace pev::cli
