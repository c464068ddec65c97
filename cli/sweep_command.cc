// peverify sweep: the report's study in shards, on threads or MPI ranks, resumable
// (docs/architecture.md §8).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "peverify/cli/command.h"
#include "peverify/cli/progress.h"
#include "peverify/cli/sweep_mpi.h"
#include "peverify/cli/table_options.h"
#include "peverify/encoding/request.h"
#include "peverify/reports/measured/measured_results.h"
#include "peverify/reports/render/render.h"
#include "peverify/reports/study/report_json.h"
#include "peverify/reports/study/sweep.h"
#include "peverify/support/parallel.h"

namespace pev::cli {
namespace {

struct SweepOptions {
  std::string config;
  std::string out;
  std::optional<int64_t> threads;  // absent: all cores
  bool quiet = false;
};

std::vector<size_t> open_dir(const reports::study::StudyPlan& plan, const SweepOptions& o) {
  reports::study::open_sweep_dir(plan, o.out);
  std::vector<size_t> missing = reports::study::missing_shards(plan, o.out);
  if (!o.quiet)
    fmt::print(stderr, "peverify sweep: {} shards, {} already recorded in {}, {} to compute\n",
               plan.shards().size(), plan.shards().size() - missing.size(), o.out, missing.size());
  return missing;
}

int finish(const reports::study::StudyPlan& plan, const SweepOptions& o,
           std::chrono::steady_clock::time_point t0) {
  reports::study::StudyResult study;
  {
    Progress progress("peverify sweep: merging", o.quiet);
    study = reports::study::merge_sweep(plan, o.out, [&](const std::string& step, double fraction) {
      progress.update(step, fraction);
    });
  }
  study.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json json = reports::study::to_json(study);
  reports::measured::attach(json, reports::measured::compiled_in());  // as `peverify report` does
  const auto files = reports::render::write_report(json, o.out);
  if (!o.quiet)
    fmt::print(stderr, "peverify sweep: {} implementations from {} shards in {:.1f} s; wrote {}\n",
               study.entries.size(), plan.shards().size(), study.seconds, fmt::join(files, " "));
  return kExitOk;
}

int run_sweep(const SweepOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  reports::study::StudyConfig config = o.config.empty()
                                           ? reports::study::StudyConfig{}
                                           : reports::study::read_study_config(o.config);
  config.threads = resolve_threads(o.threads);
  const reports::study::StudyPlan plan(config);
  if (launched_by_mpirun()) {
#ifdef PEV_HAVE_MPI
    return run_sweep_mpi(
        plan, o.out, o.quiet, [&] { return open_dir(plan, o); },
        [&] { return finish(plan, o, t0); });
#else
    const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
    if (size && std::string(size) != "1")
      throw UsageError(
          "this peverify was built without MPI (PEV_ENABLE_MPI); run it without mpirun");
#endif
  }
  const std::vector<size_t> missing = open_dir(plan, o);
  {
    Progress progress("peverify sweep", o.quiet);
    reports::study::run_shards(plan, o.out, missing, config.threads, [&](size_t done) {
      progress.update(plan.shards()[missing[done - 1]].key(),
                      static_cast<double>(done) / missing.size());
    });
  }
  return finish(plan, o, t0);
}

}  // namespace

bool launched_by_mpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr; }

void add_sweep_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* app = root.add_subcommand(
      "sweep",
      "The report's study in resumable shards, on threads or `mpirun -np N` ranks; "
      "`peverify report --from DIR` renders it");
  app->add_option("--config", o->config, "a study config (JSON; default: the default study)");
  app->add_option("--out", o->out, "the sweep directory (shards, then the report files)")
      ->required();
  app->add_option("--threads", o->threads, "threads (default: all cores; one per MPI rank)");
  app->add_flag("--quiet", o->quiet, "no progress on stderr");
  commands.push_back({app, [o] { return run_sweep(*o); }});
}

}  // namespace pev::cli
