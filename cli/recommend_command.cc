// peverify recommend: the report's recommendation for one output type, context length and set
// of targets, answered from the last study on disk (report.json) by the report's own rule
// (reports/study/recommend.h). The study runs only when asked (--run) or when there is no report.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "peverify/cli/command.h"
#include "peverify/cli/enum_option.h"
#include "peverify/cli/progress.h"
#include "peverify/cli/table_options.h"
#include "peverify/encoding/targets.h"
#include "peverify/encoding/vocabulary.h"
#include "peverify/properties/checks.h"
#include "peverify/reports/render/render.h"
#include "peverify/reports/render/report_text.h"
#include "peverify/reports/study/recommend.h"
#include "peverify/reports/study/report_json.h"
#include "peverify/reports/study/snippets.h"
#include "peverify/reports/study/study.h"
#include "peverify/support/atomic_file.h"

namespace pev::cli {
namespace {

using nlohmann::json;

struct RecommendOptions {
  Dtype dtype = Dtype::kFloat32;
  int64_t positions = 0;  // signed: -1 must not read as 2^64 - 1
  std::vector<std::string> targets;
  std::string from;  // a report or sweep directory; empty: peverify report's default
  bool run = false;
  bool quiet = false;
  std::string json_path;         // --json FILE: the answer as data
  std::string framework = "hf";  // whose code the answer replaces
};

constexpr const char* kDefaultReport = "peverify-report";

// The study `peverify recommend --run` makes: the entries storing `dtype`, on the first grid of
// the default study, up to the context (a few seconds, not the report's minutes).
json run_small_study(const RecommendOptions& o) {
  reports::study::StudyConfig config;
  config.d_models = {config.d_models.front()};
  config.bases = {config.bases.front()};
  config.max_position = std::max<uint64_t>(static_cast<uint64_t>(o.positions), 8192);
  // Entries storing this dtype: names end ">f32/...", ">f16/...", ">bf16/..." (bf16t truncates).
  const std::string short_name = o.dtype == Dtype::kFloat32   ? "f32"
                                 : o.dtype == Dtype::kFloat16 ? "f16"
                                                              : "bf16t?";
  config.filter = ">" + short_name + "/";
  config.rotary_models.clear();  // the plain encoding's question
  Progress progress("peverify recommend", o.quiet);
  return reports::study::to_json(reports::study::run_study(
      config, [&](const std::string& s, double f) { progress.update(s, f); }));
}

json read_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw FileError("cannot read " + path);
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw FileError(path + ": malformed: " + e.what());
  }
}

// The study's largest position, when the report says.
std::optional<uint64_t> studied_up_to(const json& report) {
  const json study = report.value("study", json::object());
  if (!study.is_object() || !study.contains("max_position") ||
      !study["max_position"].is_number_unsigned())
    return std::nullopt;
  return study["max_position"].get<uint64_t>();
}

// "2026-11-25T12:40:00Z, 86 implementations studied up to position 16777216"
std::string describe(const json& report) {
  std::string out = report.contains("date") && report["date"].is_string()
                        ? report["date"].get<std::string>()
                        : std::string("undated");
  out += fmt::format(", {} implementations", report["implementations"].size());
  if (const auto studied = studied_up_to(report))
    out += fmt::format(" studied up to position {}", *studied);
  return out;
}

int run_recommend(const RecommendOptions& o) {
  if (o.positions < 1 || o.positions > (int64_t{1} << 40))
    throw UsageError("--positions must be in [1, 2^40]");
  const uint64_t positions = static_cast<uint64_t>(o.positions);
  if (o.run && !o.from.empty()) throw UsageError("--run and --from exclude each other");
  // Asked targets are answered whatever they are; without any, the defaults the type can hold.
  const bool asked = !o.targets.empty();
  const std::vector<std::string> targets = asked ? o.targets : default_targets(o.dtype);
  const std::string dir = o.from.empty() ? kDefaultReport : o.from;
  const std::string path = dir + "/report.json";
  json report;
  std::string source;
  if (!o.run && !o.from.empty() && !std::filesystem::exists(path))
    throw FileError(o.from +
                    " holds no report.json (written by peverify report --out DIR, or by a "
                    "finished peverify sweep --out DIR)");
  if (o.run || !std::filesystem::exists(path)) {
    if (!o.run)
      fmt::print(stderr,
                 "peverify recommend: no report in {} to answer from (peverify report writes "
                 "one); running a study of the {} entries\n",
                 dir, name_of(o.dtype));
    report = run_small_study(o);
    source = "a study just run";
  } else {
    report = read_report(path);
    source = path;
  }
  const auto candidates = reports::study::candidates_from_report(report, source);
  const std::optional<uint64_t> studied = studied_up_to(report);
  const auto recs = reports::study::recommend(candidates, {std::string(name_of(o.dtype))},
                                              {positions}, targets, true, o.framework);
  // The file first: an unwritable --json is an error before anything is printed.
  if (!o.json_path.empty()) {
    json out = {
        {"source", source}, {"study", describe(report)}, {"recommendations", json::array()}};
    for (const reports::study::Recommendation& r : recs)
      out["recommendations"].push_back(reports::study::to_json(r));
    write_file_atomically(o.json_path, [&](std::ostream& s) { s << out.dump(2) << "\n"; });
  }
  fmt::print("answered from {} ({})\n", source, describe(report));
  bool all = true;
  for (const reports::study::Recommendation& r : recs) {
    std::string why = r.evidence;
    if (r.entry.empty() && studied && positions > *studied)
      why += fmt::format(
          " (the study reached position {} only: peverify recommend --run studies up to {})",
          *studied, positions);
    fmt::print("{}, {} positions, target {}: {}\n  {}\n", r.dtype, r.context, r.target,
               r.entry.empty() ? "none" : r.entry, why);
    if (r.pytorch) {
      if (r.pytorch->entry == r.entry)
        fmt::print("  in PyTorch (the same entry):\n");
      else
        fmt::print("  in PyTorch ({}: {}):\n", r.pytorch->entry, r.pytorch->evidence);
      std::string code = r.pytorch->code;
      for (size_t at = 0, next; at < code.size(); at = next + 1) {
        next = code.find('\n', at);
        if (next == std::string::npos) next = code.size();
        const std::string line = code.substr(at, next - at);
        fmt::print("{}{}\n", line.empty() ? "" : "    ", line);
      }
      fmt::print("  in a CUDA kernel: {}\n", r.pytorch->cuda);
      if (!r.pytorch->replaces.empty()) fmt::print("  replaces {}\n", r.pytorch->replaces);
    }
    all = all && !r.entry.empty();
  }
  // It answered: exit 1 only when a target the user asked has no implementation.
  return all || !asked ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_recommend_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<RecommendOptions>();
  CLI::App* app = root.add_subcommand(
      "recommend", "The report's pick for an output type, context length and target");
  // The types the report recommends for (no implementation stores float64 tables).
  std::vector<Dtype> dtypes;
  for (const std::string& name : vocabulary().output_dtypes) dtypes.push_back(*parse_dtype(name));
  app->add_option("--dtype", o->dtype, "the table's storage type")
      ->required()
      ->transform(one_of(dtypes));
  app->add_option("--positions", o->positions, "the context length")->required();
  std::vector<std::string> targets;
  for (const properties::Target& t : properties::horizon_targets()) targets.push_back(t.name);
  app->add_option("--target", o->targets,
                  fmt::format("an absolute error or faithful; repeatable (default {}, or for a "
                              "type that cannot hold 1e-4 the smallest target it can)",
                              in_words(vocabulary().targets.recommend_default, "and")))
      ->check(CLI::IsMember(targets));
  app->add_option("--from", o->from,
                  "a report or sweep directory holding report.json (default peverify-report)");
  app->add_flag("--run", o->run, "run a study of the entries storing --dtype instead");
  app->add_flag("--quiet", o->quiet, "no progress on stderr");
  std::vector<std::string> frameworks;
  for (const reports::study::Framework& f : reports::study::frameworks())
    frameworks.push_back(f.name);
  app->add_option("--framework", o->framework,
                  "whose code the answer replaces: " + in_words(frameworks, "or") + " (default hf)")
      ->check(CLI::IsMember(frameworks));
  app->add_option("--json", o->json_path,
                  "also write the answer as JSON (each cell's PyTorch code under \"pytorch\")");
  commands.push_back({app, [o] { return run_recommend(*o); }});
}

}  // namespace pev::cli
