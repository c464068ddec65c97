// peverify report: the accuracy and performance comparison report (the main job).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/progress.h"
#include "cli/table_options.h"
#include "reports/render.h"
#include "reports/study.h"

namespace pev::cli {
namespace {

struct ReportOptions {
  std::string config;
  std::string out = "peverify-report";
  bool quiet = false;
};

int run_report(const ReportOptions& o) {
  const reports::StudyConfig config =
      o.config.empty() ? reports::StudyConfig{} : reports::read_study_config(o.config);
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);  // fails early, not after the study
  if (ec) throw UsageError("cannot create the output directory " + o.out + ": " + ec.message());
  check_writable(o.out + "/report.json");
  reports::StudyResult study;
  {
    Progress progress("peverify report", o.quiet);
    study = reports::run_study(
        config, [&](const std::string& step, double fraction) { progress.update(step, fraction); });
  }
  const nlohmann::json json = reports::to_json(study);
  const auto files = reports::write_report(json, o.out);
  if (!o.quiet) {
    std::fprintf(stderr, "peverify report: %zu implementations in %.1f s; wrote",
                 study.entries.size(), study.seconds);
    for (const std::string& f : files) std::fprintf(stderr, " %s", f.c_str());
    std::fprintf(stderr, "\n");
  }
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* app = root.add_subcommand(
      "report", "The accuracy and performance comparison of every implementation (the main job)");
  app->add_option("--config", o->config, "a study config (JSON; default: the default study)");
  app->add_option("--out", o->out, "output directory (default peverify-report)");
  app->add_flag("--quiet", o->quiet, "no progress on stderr");
  commands.push_back({app, [o] { return run_report(*o); }});
}

}  // namespace pev::cli
