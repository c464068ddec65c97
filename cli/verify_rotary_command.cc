// peverify verify-rotary --input X --output Y: q (or k) before and after a RoPE kernel, every
// element against the exact rotation (docs/features.md §15).
#include <fmt/format.h>

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
#include "peverify/tables/table_stream.h"
#include "peverify/verify/sinusoids/rotary_axes.h"
#include "peverify/verify/verify_rotary.h"

namespace pev::cli {
namespace {

struct VerifyRotaryCommandOptions {
  std::string input, output, input_tensor, output_tensor;
  std::string axes;  // empty: from the rank
  std::string pairs = "halves";
  std::string output_pairs;  // empty: as --pairs
  // The rotation's frequencies and positions: d_model is --rotary-dim (0: the model config's,
  // else the head dimension); positions a .npy of ids.
  TableOptions table;
  std::optional<Dtype> dtype;
  Claim::Kind claim = Claim::Kind::kModel;
  std::string compute = "float32";
  std::optional<int64_t> threads;
  std::string json;
  std::string rope_axes;  // RoPE over several position axes at real ids (docs/features.md §16.2)
};

TableStream open_tensor(const std::string& path, const std::string& tensor,
                        std::optional<Dtype> dtype) {
  ReadOptions read;
  read.dtype = dtype;
  read.any_rank = true;
  if (!tensor.empty()) read.tensor = tensor;
  return open_table(path, read);
}

int run_verify_rotary(const VerifyRotaryCommandOptions& o) {
  const int threads = resolve_threads(o.threads);
  if (!o.json.empty()) check_writable(o.json);
  const TableStream x = open_tensor(o.input, o.input_tensor, o.dtype);
  const TableStream y =
      open_tensor(o.output, o.output_tensor.empty() ? o.input_tensor : o.output_tensor, o.dtype);
  if (x.shape() != y.shape())
    throw ConfigError(fmt::format("the input is {} and the output {}: the same shape is needed",
                                  x.description(), y.description()));
  if (x.complex() || y.complex())
    throw ConfigError("complex tensors are not q or k: save them real");

  verify::RotaryArguments args;
  args.shape = x.shape();
  args.axes = o.axes;
  args.pairs = o.pairs;
  args.output_pairs = o.output_pairs;
  args.compute = o.compute;
  args.rotary = rotary_request(o.table);
  args.start = o.table.start;
  std::optional<RopeAxes> rope_axes;
  if (!o.rope_axes.empty()) {
    refuse_table_flags(o.table, "--rope-axes", true, "--rotary-dim");
    if (o.table.positions.empty())
      throw UsageError("--rope-axes needs --positions: a .npy of each token's ids, [axes, N]");
    rope_axes = parse_rope_axes(o.rope_axes, o.table.base_option && o.table.base_option->count()
                                                 ? std::optional(o.table.base)
                                                 : std::nullopt);
    args.rotary = RotaryRequest{};  // the whole head; axes_rotation sets the rotated part
  } else if (!o.table.positions.empty()) {
    args.positions = read_position_ids(o.table.positions);
    args.positions_name = o.table.positions;
  }
  args.claim = o.claim;
  args.threads = threads;
  const verify::VerifyRotaryOptions options = verify::resolve_rotary(std::move(args));
  const auto reader = [](const TableStream& t) {
    return [&t](uint64_t first, uint64_t n, double* out) { t.read_rows(first, n, out); };
  };
  if (rope_axes) {
    const verify::sinusoids::AxesRotation declared =
        verify::sinusoids::axes_rotation(*rope_axes, options, numbers_of(o.table.positions));
    const verify::sinusoids::SinusoidVerdict v = verify::sinusoids::verify_rotary_axes(
        {o.input, x.description(), x.dtype(), reader(x)},
        {o.output, y.description(), y.dtype(), reader(y)}, declared);
    std::fputs(verify::sinusoids::to_text(v).c_str(), stdout);
    if (!o.json.empty())
      write_file_atomically(
          o.json, [&](std::ostream& os) { os << verify::sinusoids::to_json(v).dump(2) << "\n"; });
    return v.holds() ? kExitOk : kExitCheckFailed;
  }

  const verify::RotaryTensor in{o.input, x.description(), x.dtype(), reader(x)};
  const verify::RotaryTensor out{o.output, y.description(), y.dtype(), reader(y)};
  const verify::VerifyRotaryResult r = verify::verify_rotary(in, out, options);
  std::fputs(verify::to_text(r).c_str(), stdout);
  if (!o.json.empty())
    write_file_atomically(o.json,
                          [&](std::ostream& os) { os << verify::to_json(r).dump(2) << "\n"; });
  return r.holds() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_verify_rotary_command(CLI::App& root, std::vector<Command>& commands) {
  auto o = std::make_shared<VerifyRotaryCommandOptions>();
  CLI::App* app = root.add_subcommand(
      "verify-rotary",
      "Check a RoPE kernel: q or k before (--input) and after (--output), every element against "
      "the exact rotation");
  app->add_option("--input", o->input, "the tensor before the rotation (.npy or .safetensors)")
      ->required();
  app->add_option("--output", o->output, "the tensor after it, the same shape")->required();
  app->add_option("--tensor", o->input_tensor, "the tensor to read from .safetensors files");
  app->add_option("--output-tensor", o->output_tensor,
                  "the output's tensor, when its name differs from --tensor");
  app->add_option("--axes", o->axes,
                  "tokens,heads,dim (rank 2 or 3: the default), batch,seq,heads,dim, or "
                  "batch,heads,seq,dim (the default for rank 4, Hugging Face's)");
  app->add_option("--pairs", o->pairs,
                  "halves: rotate-half, GPT-NeoX, Llama (default); interleaved: GPT-J, Meta");
  app->add_option("--output-pairs", o->output_pairs,
                  "where each pair's two outputs are written, when not where --pairs read them: "
                  "halves (DeepSeek-V3's apply_rotary_pos_emb_interleave reads interleaved pairs "
                  "and writes them in halves) or interleaved");
  add_table_options(*app, o->table, TableUse::kRotated);
  app->add_option("--dtype", o->dtype, "how to read 16-bit data: bfloat16 (uint16 .npy) or float16")
      ->transform(one_of(kDtypes));
  app->add_option("--budget", o->claim, "the error budget (default model)")
      ->transform(one_of(kBudgets));
  app->add_option(
      "--compute", o->compute,
      "how the kernel computes, for the model budget: float32 (default), "
      "float32-fma, bfloat16 (Hugging Face with a bfloat16 model), float64, ggml (ggml-cpu: the "
      "angle by a recurrence over pairs)");
  app->add_option("--rope-axes", o->rope_axes,
                  fmt::format("RoPE over several position axes: a preset ({}) or each axis's "
                              "dims (16,56,56); --positions gives each token's ids [axes, N], "
                              "floats and negatives allowed",
                              rope_axes_preset_names()));
  app->add_option("--threads", o->threads, "worker threads (default: all cores)");
  app->add_option("--json", o->json, "also write the results as JSON here");
  commands.push_back({app, [o] { return run_verify_rotary(*o); }});
}

}  // namespace pev::cli
