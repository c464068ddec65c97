// peverify: one main; each subcommand parses its options and calls the libraries.
#include <fmt/format.h>
#include <malloc.h>

#include <cstdio>
#include <exception>
#include <string>

#include "peverify/cli/command.h"
#include "peverify/encoding/model_config.h"
#include "peverify/oracle/version.h"
#include "peverify/support/atomic_file.h"
#include "peverify/support/temporary_files.h"

namespace {

int fail(int code, const std::string& message) {
  // One line, whatever the message held.
  std::string line = message;
  for (char& c : line)
    if (c == '\n') c = ' ';
  fmt::print(stderr, "peverify: error: {}\n", line);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace pev::cli;
  pev::remove_temporaries_on_signal();  // Ctrl-C leaves no hidden temporary behind
  // Tables of megabytes are allocated and freed thousands of times by a study: glibc maps each
  // from the kernel and unmaps it on free, so every one was zeroed page by page again (a tenth
  // of the default report's time). Keep freed memory for reuse instead; the peak is unchanged.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  CLI::App app{"peverify: accuracy and speed of sinusoidal positional-encoding tables, with proof"};
  // The version and the oracle's: the hash of the sources that decide its values, which is what a
  // verdict's exact values depend on.
  app.set_version_flag("--version", fmt::format("peverify {} (oracle {})", PEV_VERSION,
                                                pev::oracle::oracle_version()));
  app.require_subcommand(1);
  std::vector<Command> commands;
  add_report_command(app, commands);
  add_list_command(app, commands);
  add_oracle_command(app, commands);
  add_generate_command(app, commands);
  add_verify_command(app, commands);
  add_verify_rotary_command(app, commands);
  add_check_command(app, commands);
  add_bench_command(app, commands);
  add_recommend_command(app, commands);
  add_sweep_command(app, commands);
  add_measure_cuda_command(app, commands);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kExitBadInput, e.what());
  }
  try {
    for (const Command& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const UsageError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const pev::FileError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const pev::ConfigError& e) {  // a model config, a recipe or a spec that cannot be
    return fail(kExitBadInput, e.what());
  } catch (const std::bad_alloc&) {
    return fail(kExitBadInput, "out of memory: the requested table is too large for this machine");
  } catch (const std::exception& e) {
    return fail(kExitInternalError, std::string("internal: ") + e.what());
  }
  return fail(kExitBadInput, "no subcommand given (see --help)");
}
