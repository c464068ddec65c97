// peverify recommend: the fastest implementation meeting an accuracy target up to a context.
#include <fmt/format.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/enum_option.h"
#include "cli/progress.h"
#include "cli/table_options.h"
#include "properties/checks.h"
#include "reports/report_text.h"
#include "reports/study.h"

namespace pev::cli {
namespace {

struct RecommendOptions {
  Dtype dtype = Dtype::kFloat32;
  int64_t positions = 0;  // signed: -1 must not read as 2^64 - 1
  std::vector<std::string> targets;
  bool quiet = false;
};

int run_recommend(const RecommendOptions& o) {
  if (o.positions < 1 || o.positions > (int64_t{1} << 40))
    throw UsageError("--positions must be in [1, 2^40]");
  std::vector<std::string> targets = o.targets;
  if (targets.empty()) targets = {"1e-4", "faithful"};
  reports::StudyConfig config;
  config.d_models = {512};
  config.bases = {1e4};
  config.max_position = std::max<uint64_t>(static_cast<uint64_t>(o.positions), 8192);
  // Entries storing this dtype: names end ">f32/...", ">f16/...", ">bf16/..." (bf16t truncates).
  const std::string short_name = o.dtype == Dtype::kFloat32   ? "f32"
                                 : o.dtype == Dtype::kFloat16 ? "f16"
                                                              : "bf16t?";
  config.filter = ">" + short_name + "/";
  config.rotary_models.clear();  // the plain encoding's question
  reports::StudyResult study;
  {
    Progress progress("peverify recommend", o.quiet);
    study =
        reports::run_study(config, [&](const std::string& s, double f) { progress.update(s, f); });
  }
  const auto recs = reports::recommend(study.entries, {std::string(name_of(o.dtype))},
                                       {static_cast<uint64_t>(o.positions)}, targets);
  bool all = true;
  for (const reports::Recommendation& r : recs) {
    fmt::print("{}, {} positions, target {}: {}\n  {}\n", r.dtype, r.context, r.target,
               r.entry.empty() ? "none" : r.entry,
               r.entry.empty() ? reports::unmet_reason(r.dtype, r.target) : r.evidence);
    all = all && !r.entry.empty();
  }
  return all ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_recommend_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<RecommendOptions>();
  CLI::App* app = root.add_subcommand(
      "recommend", "The fastest implementation meeting a target up to a context length");
  // No implementation stores float64 tables.
  app->add_option("--dtype", o->dtype, "the table's storage type")
      ->required()
      ->transform(one_of(std::array{Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}));
  app->add_option("--positions", o->positions, "the context length")->required();
  std::vector<std::string> targets;
  for (const properties::Target& t : properties::horizon_targets()) targets.push_back(t.name);
  app->add_option("--target", o->targets,
                  "an absolute error or faithful; repeatable (default 1e-4 and faithful)")
      ->check(CLI::IsMember(targets));
  app->add_flag("--quiet", o->quiet, "no progress on stderr");
  commands.push_back({app, [o] { return run_recommend(*o); }});
}

}  // namespace pev::cli
