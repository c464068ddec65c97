// peverify check --budgets FILE: the CI gate.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/table_options.h"
#include "reports/gate.h"
#include "tables/atomic_file.h"

namespace pev::cli {
namespace {

struct CheckOptions {
  std::string budgets;
  std::string junit;
  bool update = false;
};

int run_check(const CheckOptions& o) {
  const reports::BudgetFile file = reports::read_budget_file(o.budgets);
  if (!o.junit.empty()) check_writable(o.junit);
  const auto outcomes = reports::run_gate(file, [](const std::string& subject) {
    fmt::print(stderr, "check: measured {}\n", subject);
  });
  int regressions = 0;
  for (const reports::GateOutcome& g : outcomes) {
    if (g.skipped) continue;
    regressions += g.regressed;
    if (g.regressed || !o.update)
      fmt::print("{:<8} {:<34} positions {:<18} {}\n", g.regressed ? "FAIL" : "ok", g.subject,
                 g.band, g.message);
  }
  if (!o.junit.empty())
    write_file_atomically(o.junit, [&](std::ostream& out) { out << reports::junit_xml(outcomes); });
  if (o.update) {
    const reports::BudgetFile next = reports::updated(file, outcomes);
    write_file_atomically(
        o.budgets, [&](std::ostream& out) { out << reports::to_json(next).dump(2) << "\n"; });
    fmt::print("check: rewrote {} with the measured budgets\n", o.budgets);
    return kExitOk;
  }
  fmt::print("check: {} regression(s) in {} measurements\n", regressions, outcomes.size());
  return regressions ? kExitCheckFailed : kExitOk;
}

}  // namespace

void add_check_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* app = root.add_subcommand(
      "check", "CI gate: measured error per implementation and position band vs recorded budgets");
  app->add_option("--budgets", o->budgets, "the budget file (JSON)")->required();
  app->add_option("--junit", o->junit, "also write JUnit XML here");
  app->add_flag("--update", o->update, "rewrite the budget file with what was measured");
  commands.push_back({app, [o] { return run_check(*o); }});
}

}  // namespace pev::cli
