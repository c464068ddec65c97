// peverify verify TABLE: every property of the suite on a user's table.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/table_options.h"
#include "reports/verify.h"
#include "tables/atomic_file.h"
#include "tables/table_file.h"

namespace pev::cli {
namespace {

struct VerifyCommandOptions {
  std::string table;
  int d_model = 0;  // 0: from the table's width
  double base = 10000.0;
  std::string layout = "interleaved";
  uint64_t start = 0;
  std::string schedule = "paper";
  std::string compute = "float32";
  std::string dtype;
  std::string tensor;
  std::string budget = "model";
  std::string json;
};

Claim budget_of(const VerifyCommandOptions& o) {
  if (o.budget == "strict") return Claim::strict();
  if (o.budget == "faithful") return Claim::faithful();
  if (o.budget != "model")
    throw UsageError("unknown budget '" + o.budget + "' (model, strict or faithful)");
  return Claim::model(dtype_of(o.compute));
}

int run_verify(const VerifyCommandOptions& o) {
  TableSpec spec;
  spec.base = o.base;
  spec.start = o.start;
  spec.schedule = schedule_of(o.schedule);
  spec.layout = layout_of(o.layout);
  const Claim budget = budget_of(o);
  ReadOptions read;
  if (!o.dtype.empty()) read.dtype = dtype_of(o.dtype);
  if (!o.tensor.empty()) read.tensor = o.tensor;
  if (!o.json.empty()) check_writable(o.json);

  LoadedTable t = read_table(o.table, read);
  const bool half_width = spec.layout == Layout::kRopeCos || spec.layout == Layout::kRopeSin;
  const uint64_t implied_d = half_width ? 2 * t.width : t.width;
  if (o.d_model != 0 && static_cast<uint64_t>(o.d_model) != implied_d)
    throw UsageError("the table is " + std::to_string(t.width) + " wide, but --d-model " +
                     std::to_string(o.d_model) + " with layout " + o.layout + " needs " +
                     std::to_string(half_width ? o.d_model / 2 : o.d_model));
  if (implied_d > (uint64_t{1} << 20))
    throw UsageError("the table is " + std::to_string(t.width) +
                     " wide: d_model above 2^20 is "
                     "not a positional encoding peverify knows");
  spec.d_model = static_cast<int>(implied_d);
  if (auto err = validate_range(spec, t.rows)) throw UsageError(*err);

  reports::TableInput input{o.table, t.description, t.dtype, t.rows, std::move(t.values)};
  reports::VerifyOptions options;
  options.spec = spec;
  options.budget = budget;
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
  app->add_option("--d-model", o->d_model, "d_model (default: from the table's width)");
  app->add_option("--base", o->base, "frequency base b (default 10000)");
  app->add_option("--layout", o->layout,
                  "interleaved, halves, rope-cos, rope-sin, rope-cos-dup or rope-sin-dup");
  app->add_option("--start", o->start, "position of the first row (default 0)");
  app->add_option("--schedule", o->schedule, "paper or t2t");
  app->add_option("--compute", o->compute,
                  "the precision you claim to compute in (default float32, whatever the storage)");
  app->add_option("--dtype", o->dtype,
                  "how to read 16-bit data: bfloat16 (uint16 .npy) or float16");
  app->add_option("--tensor", o->tensor, "the tensor to read from a .safetensors file");
  app->add_option("--budget", o->budget, "model (default), strict or faithful");
  app->add_option("--json", o->json, "also write the results as JSON here");
  commands.push_back({app, [o] { return run_verify(*o); }});
}

}  // namespace pev::cli
