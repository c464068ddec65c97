// peverify verify TABLE: every property of the suite on a user's table.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "peverify/cli/command.h"
#include "peverify/cli/enum_option.h"
#include "peverify/cli/table_options.h"
#include "peverify/cli/verify_sinusoids.h"
#include "peverify/encoding/request.h"
#include "peverify/support/atomic_file.h"
#include "peverify/tables/position_ids.h"
#include "peverify/tables/table_file.h"
#include "peverify/tables/table_stream.h"
#include "peverify/verify/verify.h"

namespace pev::cli {
namespace {

struct VerifyCommandOptions {
  std::string file;      // the table: .npy or .safetensors
  std::string sin_file;  // --sin: the sin cache of the same rows, beside a cos cache
  // What it holds; d_model 0: from the table's width; positions: a .npy of position ids, one per
  // row (or [3, N] for M-RoPE).
  TableOptions table;
  std::string compute = "float32";
  std::optional<Dtype> dtype;  // empty: from the file
  std::string tensor;
  Claim::Kind claim = Claim::Kind::kModel;
  CLI::Option* model_c_option = nullptr;
  double model_c = 0;
  std::optional<int64_t> threads;  // absent: all cores
  std::string json;
  SinusoidOptions sinusoids;  // --timesteps, --rope-axes, --alibi
};

verify::TableInput input_of(const std::string& name, const TableStream& t) {
  return {name,
          t.description(),
          t.dtype(),
          t.rows(),
          [&t](uint64_t first, uint64_t n, double* out) { t.read_rows(first, n, out); },
          {}};
}

// The sin cache's layout beside a cos cache's: the same columns, sin for cos.
std::optional<Layout> sin_layout_of(Layout cos) {
  switch (cos) {
    case Layout::kRopeCos:
      return Layout::kRopeSin;
    case Layout::kRopeCosDup:
      return Layout::kRopeSinDup;
    case Layout::kRopeCosPairs:
      return Layout::kRopeSinPairs;
    default:
      return std::nullopt;
  }
}

// verify COS --sin SIN: each cache judged whole by its own verify, each one's read-back taking
// the other's rows (verify::CompanionTable); both must pass.
int verify_cos_and_sin(const VerifyCommandOptions& o, const TableStream& cos,
                       const ReadOptions& read, const TableRequest& q,
                       verify::VerifyOptions cos_options) {
  const std::optional<Layout> sin_layout = sin_layout_of(cos_options.spec.layout);
  if (!sin_layout)
    throw ConfigError(
        fmt::format("--sin pairs a cos cache (--layout rope-cos, rope-cos-dup or "
                    "rope-cos-pairs) with its sin cache; {} is read as {}",
                    o.file, name_of(cos_options.spec.layout)));
  const TableStream sin = open_table(o.sin_file, read);
  if (sin.rows() != cos.rows() || sin.width() != cos.width() || sin.complex())
    throw ConfigError(fmt::format("--sin {}: {} rows of {} values, where {} has {} of {}",
                                  o.sin_file, sin.rows(), sin.width(), o.file, cos.rows(),
                                  cos.width()));
  const auto row_reader = [](const TableStream& t) {
    return [&t](uint64_t row, double* out) { t.read_rows(row, 1, out); };
  };
  verify::VerifyOptions sin_options = cos_options;
  sin_options.spec.layout = *sin_layout;
  sin_options.other_layer_types = layer_type_specs(q.rotary, sin_options.spec);
  cos_options.companion = verify::CompanionTable{o.sin_file, *sin_layout, row_reader(sin)};
  sin_options.companion = verify::CompanionTable{o.file, cos_options.spec.layout, row_reader(cos)};
  const verify::VerifyResult c = verify::verify_table(input_of(o.file, cos), cos_options);
  const verify::VerifyResult s = verify::verify_table(input_of(o.sin_file, sin), sin_options);
  const bool holds = c.holds() && s.holds();
  std::fputs((verify::to_text(c) + verify::to_text(s)).c_str(), stdout);
  std::printf("verdict (cos and sin): %s\n", holds ? "PASS" : "FAIL");
  if (!o.json.empty())
    write_file_atomically(o.json, [&](std::ostream& out) {
      const nlohmann::json j = {
          {"cos", verify::to_json(c)}, {"sin", verify::to_json(s)}, {"holds", holds}};
      out << j.dump(2) << "\n";
    });
  return holds ? kExitOk : kExitCheckFailed;
}

int run_verify(const VerifyCommandOptions& o) {
  ClaimRequest request{o.claim, Dtype::kFloat32,
                       o.model_c_option->count() ? std::optional<double>(o.model_c) : std::nullopt};
  set_compute(request, o.compute);
  const Claim claim = resolve_claim(request);
  const int threads = resolve_threads(o.threads);
  ReadOptions read;
  read.dtype = o.dtype;
  if (!o.tensor.empty()) read.tensor = o.tensor;
  if (!o.json.empty()) check_writable(o.json);
  if (o.sinusoids.requested() && !o.sin_file.empty())
    throw ConfigError("--sin pairs a rotary cos cache with its sin cache, not a sinusoid family's");
  if (o.sinusoids.requested())
    return run_sinusoid_verify(o.sinusoids,
                               {o.file, o.tensor, o.json, o.dtype, &o.table, claim, threads});
  o.sinusoids.refuse_orphans();

  const TableStream t = open_table(o.file, read);
  TableRequest q;
  q.rotary = rotary_request(o.table);
  q.schedule = o.table.schedule;
  q.layout = o.table.layout;
  q.start = o.table.start;
  TableSpec spec = resolve_read(q, t.rows(), t.width(), t.complex());
  std::optional<RowPositions> positions;
  const std::string& ids_path = o.table.positions;
  if (!ids_path.empty()) {
    if (o.table.start != 0)
      throw ConfigError("--start and --positions both say where the rows are");
    positions = read_position_ids(ids_path);
    if (auto err = validate_positions(*positions, spec, t.rows()))
      throw ConfigError(ids_path + ": " + *err);
    set_sequence_length(spec, *positions);
  }

  verify::VerifyOptions options;
  options.spec = spec;
  options.positions = std::move(positions);
  options.positions_name = ids_path;
  options.source = rotary_source(q.rotary);
  options.other_layer_types = layer_type_specs(q.rotary, options.spec);
  if (q.rotary.model) options.head_dim = q.rotary.model->head_dim;
  options.claim = claim;
  options.threads = threads;
  if (!o.sin_file.empty()) return verify_cos_and_sin(o, t, read, q, std::move(options));
  const verify::VerifyResult r = verify::verify_table(input_of(o.file, t), options);
  std::fputs(verify::to_text(r).c_str(), stdout);
  if (!o.json.empty())
    write_file_atomically(o.json,
                          [&](std::ostream& out) { out << verify::to_json(r).dump(2) << "\n"; });
  return r.holds() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_verify_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<VerifyCommandOptions>();
  CLI::App* app = root.add_subcommand(
      "verify", "Check a table of yours (.npy or .safetensors) against every property");
  app->add_option("table", o->file, "the table file (.npy or .safetensors)")->required();
  app->add_option("--sin", o->sin_file,
                  "the sin cache of the same rows beside TABLE, a cos cache (--layout rope-cos, "
                  "rope-cos-dup or rope-cos-pairs): each judged whole, and each one's diagnosis "
                  "reads back from both (the sign of sin, the amplitude, every row's position)");
  add_table_options(*app, o->table, TableUse::kRead);
  app->add_option("--compute", o->compute,
                  "the precision you claim to compute in (default float32, whatever the storage); "
                  "ggml: float32 with the angle by ggml's recurrence over pairs")
      ->check(CLI::IsMember(std::vector<std::string>(kComputeNames.begin(), kComputeNames.end())));
  app->add_option("--dtype", o->dtype, "how to read 16-bit data: bfloat16 (uint16 .npy) or float16")
      ->transform(one_of(kDtypes));
  app->add_option("--tensor", o->tensor, "the tensor to read from a .safetensors file");
  app->add_option("--budget", o->claim, "the error budget (default model)")
      ->transform(one_of(kBudgets));
  o->model_c_option = app->add_option(
      "--model-c", o->model_c,
      fmt::format(
          "the model budget's constant C (default {:g}, docs/mathematics.md §3.2); recorded in "
          "--json",
          claim_constants().direct_c));
  app->add_option("--threads", o->threads, "worker threads (default: all cores)");
  app->add_option("--json", o->json, "also write the results as JSON here");
  add_sinusoid_options(*app, o->sinusoids);
  commands.push_back({app, [o] { return run_verify(*o); }});
}

}  // namespace pev::cli
