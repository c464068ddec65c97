// peverify check --budgets FILE: the CI gate.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "peverify/cli/command.h"
#include "peverify/cli/rotary_options.h"
#include "peverify/cli/table_options.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/gate/gate.h"
#include "peverify/support/atomic_file.h"
#include "peverify/tables/table_file.h"

namespace pev::cli {
namespace {

struct CheckOptions {
  std::string budget_file;
  std::string junit;
  bool update = false;
};

// A table subject's model_config and rope_scaling, applied exactly as verify's --model-config and
// --rope-scaling are (cli/rotary_options.h).
void apply_rotary(const std::string& budgets, gate::GateSubject& g) {
  if (g.table.empty()) return;
  RotaryOptions rotary;
  // A config beside the budgets, else a preset's name (`peverify list --models`), as verify
  // --model-config reads it.
  const bool preset = std::any_of(model_presets().begin(), model_presets().end(),
                                  [&](const ModelPreset& p) { return p.name == g.model_config; });
  rotary.model_config = preset && !std::filesystem::exists(g.model_config_path)
                            ? g.model_config
                            : g.model_config_path;
  rotary.layer_type = g.layer_type;
  if (g.rope_scaling) rotary.rope_scaling = g.rope_scaling->dump();
  try {
    const RotaryRequest q = rotary_request(rotary, g.d_model, g.base);
    apply_rotary(q, g.spec);
    // What the diagnosis of a failing band tries, as verify's does.
    g.other_layer_types = layer_type_specs(q, g.spec);
    if (q.model) g.head_dim = q.model->head_dim;
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: subject {}: {}", printable(budgets, 160), g.table, e.what()));
  }
}

int run_check(const CheckOptions& o) {
  gate::BudgetFile file = gate::read_budget_file(o.budget_file);
  for (gate::GateSubject& g : file.subjects) apply_rotary(o.budget_file, g);
  if (!o.junit.empty()) check_writable(o.junit);
  const auto outcomes = gate::run_gate(file, [](const std::string& subject) {
    fmt::print(stderr, "check: measured {}\n", subject);
  });
  int regressions = 0, shown = 0, skipped = 0;
  for (const gate::GateOutcome& g : outcomes) {
    if (g.skipped) {
      ++skipped;
      continue;
    }
    // --update rewrites the records, but NaN, Inf, wrong signs, elements that stand out from
    // their column and copies that differ are not records to write.
    const bool not_recordable =
        g.measured.nan || g.measured.inf || g.measured.wrong_sign || !g.structural.empty();
    regressions += o.update ? not_recordable : g.regressed;
    ++shown;
    if (o.update && !not_recordable)  // what it records, not the comparison with the old records
      fmt::print("{:<8} {:<34} positions {:<18} measured {} ({})\n", "record", g.subject, g.band,
                 gate::format_figures(g.measured), g.coverage);
    else {
      fmt::print("{:<8} {:<34} positions {:<18} {}\n", g.regressed ? "FAIL" : "ok", g.subject,
                 g.band, g.message);
      if (g.regressed && !g.diagnosis.empty()) fmt::print("{:<8} {}\n", "", g.diagnosis);
    }
  }
  if (!o.junit.empty())
    write_file_atomically(o.junit, [&](std::ostream& out) { out << gate::junit_xml(outcomes); });
  if (o.update && regressions) {
    fmt::print(
        "check: {} not rewritten: {} band(s) hold NaN, Inf, wrong signs or elements that stand "
        "out from their column, which no record may allow\n",
        o.budget_file, regressions);
    return kExitCheckFailed;
  }
  if (o.update) {
    if (file.completed)
      fmt::print("check: {} had no version or grid: filled in the defaults\n", o.budget_file);
    const gate::BudgetFile next = gate::updated(file, outcomes);
    write_file_atomically(o.budget_file,
                          [&](std::ostream& out) { out << gate::to_json(next).dump(2) << "\n"; });
    fmt::print("check: rewrote {} with the measured budgets\n", o.budget_file);
    return kExitOk;
  }
  fmt::print("check: {} regression(s) in {} measurements{}\n", regressions, shown,
             skipped ? fmt::format(" ({} band(s) beyond a subject's rows or valid range: skipped, "
                                   "and said so in the JUnit file)",
                                   skipped)
                     : "");
  return regressions ? kExitCheckFailed : kExitOk;
}

}  // namespace

void add_check_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* app = root.add_subcommand(
      "check", "CI gate: measured error per implementation and position band vs recorded budgets");
  app->add_option("--budgets", o->budget_file, "the budget file (JSON)")->required();
  app->add_option("--junit", o->junit, "also write JUnit XML here");
  app->add_flag("--update", o->update, "rewrite the budget file with what was measured");
  commands.push_back({app, [o] { return run_check(*o); }});
}

}  // namespace pev::cli
