// peverify verify TABLE: every property of the suite on a user's table.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "peverify/cli/command.h"
#include "peverify/cli/enum_option.h"
#include "peverify/cli/rotary_options.h"
#include "peverify/cli/table_options.h"
#include "peverify/encoding/request.h"
#include "peverify/reports/verify/verify.h"
#include "peverify/tables/atomic_file.h"
#include "peverify/tables/position_ids.h"
#include "peverify/tables/table_file.h"
#include "peverify/tables/table_stream.h"

namespace pev::cli {
namespace {

struct VerifyCommandOptions {
  std::string table;
  int d_model = 0;  // 0: from the table's width
  double base = 10000.0;
  Layout layout = Layout::kInterleaved;
  int64_t start = 0;
  std::string positions;  // a .npy of position ids, one per row (or [3, N] for M-RoPE)
  Schedule schedule = Schedule::kPaper;
  Dtype compute = Dtype::kFloat32;
  std::optional<Dtype> dtype;  // empty: from the file
  std::string tensor;
  Claim::Kind budget = Claim::Kind::kModel;
  CLI::Option* model_c_option = nullptr;
  double model_c = 0;
  std::optional<int64_t> threads;  // absent: all cores
  std::string json;
  RotaryOptions rotary;
  CLI::Option* d_model_option = nullptr;
  CLI::Option* base_option = nullptr;
};

int run_verify(const VerifyCommandOptions& o) {
  const Claim budget =
      resolve_claim({o.budget, o.compute,
                     o.model_c_option->count() ? std::optional<double>(o.model_c) : std::nullopt});
  const int threads = resolve_threads(o.threads);
  ReadOptions read;
  read.dtype = o.dtype;
  if (!o.tensor.empty()) read.tensor = o.tensor;
  if (!o.json.empty()) check_writable(o.json);

  const TableStream t = open_table(o.table, read);
  TableRequest q;
  q.rotary = rotary_request(
      o.rotary, o.d_model_option->count() ? std::optional<int>(o.d_model) : std::nullopt,
      o.base_option->count() ? std::optional<double>(o.base) : std::nullopt);
  q.schedule = o.schedule;
  q.layout = o.layout;
  q.start = o.start;
  TableSpec spec = resolve_read(q, t.rows(), t.width(), t.complex());
  std::optional<RowPositions> positions;
  if (!o.positions.empty()) {
    if (o.start != 0) throw ConfigError("--start and --positions both say where the rows are");
    positions = read_position_ids(o.positions);
    if (auto err = validate_positions(*positions, spec, t.rows()))
      throw ConfigError(o.positions + ": " + *err);
    set_sequence_length(spec, *positions);
  }

  reports::TableInput input{
      o.table,
      t.description(),
      t.dtype(),
      t.rows(),
      [&t](uint64_t first, uint64_t n, double* out) { t.read_rows(first, n, out); },
      {}};
  reports::VerifyOptions options;
  options.spec = spec;
  options.positions = std::move(positions);
  options.positions_name = o.positions;
  options.source = rotary_source(q.rotary);
  options.budget = budget;
  options.threads = threads;
  const reports::VerifyResult r = reports::verify_table(std::move(input), options);
  std::fputs(reports::to_text(r).c_str(), stdout);
  if (!o.json.empty())
    write_file_atomically(o.json,
                          [&](std::ostream& out) { out << reports::to_json(r).dump(2) << "\n"; });
  return r.holds() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_verify_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<VerifyCommandOptions>();
  CLI::App* app = root.add_subcommand(
      "verify", "Check a table of yours (.npy or .safetensors) against every property");
  app->add_option("table", o->table, "the table file (.npy or .safetensors)")->required();
  o->d_model_option =
      app->add_option("--d-model", o->d_model, "d_model (default: from the table's width)");
  o->base_option = app->add_option("--base", o->base, "frequency base b (default 10000)");
  add_rotary_options(*app, o->rotary);
  app->add_option("--layout", o->layout, "where sin and cos go in a row (default interleaved)")
      ->transform(one_of(all_layouts()));
  app->add_option("--start", o->start, "position of the first row (default 0)");
  app->add_option("--positions", o->positions,
                  "a .npy of integer position ids, one per row ([N]; [3, N] for M-RoPE's "
                  "temporal, height and width), for rows that are not consecutive positions");
  app->add_option("--schedule", o->schedule, "the frequency schedule (default paper)")
      ->transform(one_of(kSchedules));
  app->add_option("--compute", o->compute,
                  "the precision you claim to compute in (default float32, whatever the storage)")
      ->transform(one_of(kDtypes));
  app->add_option("--dtype", o->dtype, "how to read 16-bit data: bfloat16 (uint16 .npy) or float16")
      ->transform(one_of(kDtypes));
  app->add_option("--tensor", o->tensor, "the tensor to read from a .safetensors file");
  app->add_option("--budget", o->budget, "the error budget (default model)")
      ->transform(one_of(kBudgets));
  o->model_c_option = app->add_option(
      "--model-c", o->model_c,
      "the model budget's constant C (default 32, docs/design.md §3.2); recorded in --json");
  app->add_option("--threads", o->threads, "worker threads (default: all cores)");
  app->add_option("--json", o->json, "also write the results as JSON here");
  commands.push_back({app, [o] { return run_verify(*o); }});
}

}  // namespace pev::cli
