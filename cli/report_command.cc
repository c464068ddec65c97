// peverify report: the accuracy and performance comparison report (the main job).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "peverify/cli/command.h"
#include "peverify/cli/progress.h"
#include "peverify/cli/table_options.h"
#include "peverify/reports/measured/measured_results.h"
#include "peverify/reports/render/render.h"
#include "peverify/reports/study/report_json.h"
#include "peverify/reports/study/study.h"
#include "peverify/support/atomic_file.h"
#include "peverify/support/file_set.h"

namespace pev::cli {
namespace {

struct ReportOptions {
  std::string config;
  std::string from;  // a sweep directory: render its merged result instead of running the study
  std::string out = "peverify-report";
  bool quiet = false;
};

// Checks, before the study, that the report can be written into `dir`: its nearest existing
// ancestor (where the files are written first, then renamed into `dir` once all are:
// support/file_set.h) is a writable directory, and `dir` is not a file. Creates nothing.
void check_output_directory(const std::string& dir) {
  try {
    check_writable(nearest_existing_directory(dir) + "/report.json");
  } catch (const FileError& e) {
    throw UsageError(e.what());
  }
}

// The merged result `peverify sweep` left in its directory, rendered again into o.out.
int render_sweep(const ReportOptions& o) {
  if (!o.config.empty()) throw UsageError("--from and --config exclude each other");
  const std::string path = o.from + "/report.json";
  std::ifstream in(path);
  if (!in)
    throw FileError(o.from +
                    " holds no merged sweep (no report.json); finish it with "
                    "peverify sweep --out " +
                    o.from);
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw FileError(path + ": malformed: " + e.what());
  }
  if (!json.is_object() || !json.contains("implementations"))
    throw FileError(path + " is not a peverify report");
  check_output_directory(o.out);
  reports::measured::attach(json, reports::measured::compiled_in());
  const auto files = reports::render::write_report(json, o.out);
  if (!o.quiet)
    fmt::print(stderr, "peverify report: rendered the sweep in {}; wrote {}\n", o.from,
               fmt::join(files, " "));
  return kExitOk;
}

int run_report(const ReportOptions& o) {
  if (!o.from.empty()) return render_sweep(o);
  const reports::study::StudyConfig config = o.config.empty()
                                                 ? reports::study::StudyConfig{}
                                                 : reports::study::read_study_config(o.config);
  (void)reports::study::select_implementations(config.filter);  // before the directory exists
  check_output_directory(o.out);                                // fails early, not after the study
  reports::study::StudyResult study;
  {
    Progress progress("peverify report", o.quiet);
    study = reports::study::run_study(
        config, [&](const std::string& step, double fraction) { progress.update(step, fraction); });
  }
  nlohmann::json json = reports::study::to_json(study);
  // The CUDA entries a GPU measured (reports/measured), where they could not run here.
  reports::measured::attach(json, reports::measured::compiled_in());
  const auto files = reports::render::write_report(json, o.out);
  if (!o.quiet)
    fmt::print(stderr, "peverify report: {} implementations in {:.1f} s; wrote {}\n",
               study.entries.size(), study.seconds, fmt::join(files, " "));
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* app = root.add_subcommand(
      "report", "The accuracy and performance comparison of every implementation (the main job)");
  app->add_option("--config", o->config, "a study config (JSON; default: the default study)");
  app->add_option("--from", o->from, "render a sweep's merged result (peverify sweep --out DIR)");
  app->add_option("--out", o->out, "output directory (default peverify-report)");
  app->add_flag("--quiet", o->quiet, "no progress on stderr");
  commands.push_back({app, [o] { return run_report(*o); }});
}

}  // namespace pev::cli
