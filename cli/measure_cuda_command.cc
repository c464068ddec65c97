// peverify measure-cuda: the CUDA entries measured on this machine's GPU, written as a
// measured-results file to commit under reports/measured/<gpu>/ (docs/architecture.md §11.2).
#include <fmt/format.h>

#include <memory>
#include <string>

#include "peverify/cli/command.h"
#include "peverify/cli/progress.h"
#include "peverify/cli/table_options.h"
#include "peverify/reports/measured/measure_cuda.h"
#include "peverify/support/atomic_file.h"

namespace pev::cli {
namespace {

struct MeasureCudaOptions {
  reports::measured::MeasureOptions measure;
  std::string out;
  bool quiet = false;
};

int run_measure_cuda(const MeasureCudaOptions& o) {
  // Said before anything runs: without a device there is nothing to measure.
  if (const auto why = reports::measured::cannot_measure_here())
    throw UsageError("measure-cuda: " + *why);
  check_writable(o.out);
  nlohmann::json doc;
  {
    Progress progress("peverify measure-cuda", o.quiet);
    doc = reports::measured::measure_cuda(
        o.measure, [&](const std::string& step, double f) { progress.update(step, f); });
  }
  write_file_atomically(o.out, [&](std::ostream& out) { out << doc.dump(1) << "\n"; });
  if (!o.quiet)
    fmt::print(stderr, "peverify measure-cuda: {} entries and {} rotations on {}; wrote {}\n",
               doc["entries"].size(), doc["rotations"].size(),
               doc["device"]["name"].get<std::string>(), o.out);
  return kExitOk;
}

}  // namespace

void add_measure_cuda_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<MeasureCudaOptions>();
  CLI::App* app = root.add_subcommand(
      "measure-cuda",
      "Measure every CUDA entry on this machine's GPU (accuracy, properties, speed beside the "
      "device store roofline) into a file for reports/measured/<gpu>/");
  app->add_option("--out", o->out, "the measured-results JSON to write")->required();
  app->add_option("--commit", o->measure.commit, "the commit the binary was built from");
  app->add_option("--repetitions", o->measure.repetitions, "timed repetitions of each kernel")
      ->check(CLI::Range(1, 1000));
  app->add_option("--threads", o->measure.threads, "host threads of the study (default: all)");
  app->add_flag("--quiet", o->quiet, "no progress on stderr");
  commands.push_back({app, [o] {
                        o->measure.command = "peverify measure-cuda --out " + o->out;
                        return run_measure_cuda(*o);
                      }});
}

}  // namespace pev::cli
