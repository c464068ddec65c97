#include "peverify/cli/verify_sinusoids.h"

#include <fmt/format.h>

#include <cstdio>

#include "peverify/cli/command.h"
#include "peverify/encoding/model_config.h"
#include "peverify/encoding/sinusoids/rope_axes.h"
#include "peverify/encoding/sinusoids/timestep.h"
#include "peverify/support/atomic_file.h"
#include "peverify/tables/number_array.h"
#include "peverify/tables/table_file.h"
#include "peverify/verify/sinusoids/alibi_verify.h"
#include "peverify/verify/sinusoids/declarations.h"

namespace pev::cli {

verify::sinusoids::Numbers numbers_of(const std::string& path) {
  NumberArray a = read_number_array(path);
  return {path, a.type, a.shape, std::move(a.values)};
}

void refuse_table_flags(const TableOptions& t, const std::string& mode, bool axes,
                        const char* width_flag) {
  const auto refuse = [&](bool given, const char* flag) {
    if (given) throw UsageError(fmt::format("{} does not take {}", mode, flag));
  };
  refuse(t.d_model_option && t.d_model_option->count(), width_flag);
  refuse(!t.rotary.model_config.empty(), "--model-config");
  refuse(!t.rotary.rope_scaling.empty(), "--rope-scaling");
  refuse(t.start != 0, "--start");
  refuse(t.schedule != Schedule::kPaper, "--schedule");
  if (!axes) {
    refuse(t.base_option && t.base_option->count(), "--base (the recipe's max_period says it)");
    refuse(!t.positions.empty(), "--positions");
  }
}

namespace {

verify::sinusoids::SinusoidInput input_of(const SinusoidRun& run, bool any_rank) {
  ReadOptions read;
  read.dtype = run.dtype;
  read.any_rank = any_rank;
  if (!run.tensor.empty()) read.tensor = run.tensor;
  LoadedTable t = read_table(run.file, read);
  // Qwen-Image keeps complex freqs (torch.polar): real and imaginary parts as the polar layout's
  // two columns of each pair.
  if (t.complex && (any_rank || run.table->layout != Layout::kPolar))
    throw UsageError(run.file + ": complex values need --rope-axes with --layout polar");
  return {run.file, t.description, t.dtype, t.rows, t.width, std::move(t.values)};
}

int finish(const verify::sinusoids::SinusoidVerdict& v, const SinusoidRun& run) {
  std::fputs(verify::sinusoids::to_text(v).c_str(), stdout);
  if (!run.json.empty())
    write_file_atomically(
        run.json, [&](std::ostream& out) { out << verify::sinusoids::to_json(v).dump(2) << "\n"; });
  return v.holds() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_sinusoid_options(CLI::App& app, SinusoidOptions& o) {
  app.add_option("--timesteps", o.timesteps,
                 "a diffusion timestep embedding: a .npy of the timestep each row embeds "
                 "(integers or floats)");
  app.add_option("--timestep-recipe", o.timestep_recipe,
                 fmt::format("with --timesteps: a preset ({}), a JSON object with diffusers' "
                             "names, or a JSON file (default diffusers)",
                             timestep_preset_names()));
  app.add_option("--rope-axes", o.rope_axes,
                 fmt::format("multi-axis RoPE: a preset ({}) or the dims of each axis (16,56,56); "
                             "--positions gives each row's ids, [axes, N], floats and negatives "
                             "allowed",
                             rope_axes_preset_names()));
  app.add_flag("--alibi", o.alibi, "the table is ALiBi's slopes, one per head");
  o.max_bias_option =
      app.add_option("--alibi-max-bias", o.alibi_max_bias, "with --alibi: max_bias (default 8)");
  o.layout_option = app.get_option_no_throw("--layout");
}

void SinusoidOptions::refuse_orphans() const {
  if (!timestep_recipe.empty() && timesteps.empty())
    throw UsageError("--timestep-recipe needs --timesteps");
  if (max_bias_option && max_bias_option->count() && !alibi)
    throw UsageError("--alibi-max-bias needs --alibi");
}

int run_sinusoid_verify(const SinusoidOptions& o, const SinusoidRun& run) {
  o.refuse_orphans();
  const int modes = !o.timesteps.empty() + !o.rope_axes.empty() + o.alibi;
  if (modes > 1)
    throw UsageError(
        "--timesteps, --rope-axes and --alibi are three kinds of table: "
        "give one");
  const TableOptions& t = *run.table;
  if (o.alibi) {
    refuse_table_flags(t, "--alibi", false);
    if (o.layout_option && o.layout_option->count())
      throw UsageError("--alibi does not take --layout");
    const verify::sinusoids::SinusoidInput in = input_of(run, true);
    return finish(verify::sinusoids::verify_alibi(in, o.alibi_max_bias, run.claim), run);
  }
  if (!o.timesteps.empty()) {
    refuse_table_flags(t, "--timesteps", false);
    if (o.layout_option && o.layout_option->count())
      throw UsageError(
          "--timesteps does not take --layout (flip_sin_to_cos in the recipe says it)");
    const TimestepRecipe recipe =
        parse_timestep_recipe(o.timestep_recipe.empty() ? "diffusers" : o.timestep_recipe);
    const verify::sinusoids::SinusoidInput in = input_of(run, false);
    const verify::sinusoids::Numbers ts = numbers_of(o.timesteps);
    const int width = static_cast<int>(in.width);
    const verify::sinusoids::SinusoidDeclaration d =
        verify::sinusoids::timestep_declaration(recipe, width, ts, in.rows);
    return finish(verify::sinusoids::verify_sinusoid(
                      in, d, verify::sinusoids::timestep_alternatives(recipe, width, ts, in.rows),
                      run.claim, run.threads),
                  run);
  }
  refuse_table_flags(t, "--rope-axes", true);
  if (t.positions.empty())
    throw UsageError("--rope-axes needs --positions: a .npy of each row's ids, [axes, N]");
  const RopeAxes axes = parse_rope_axes(
      o.rope_axes, t.base_option && t.base_option->count() ? std::optional(t.base) : std::nullopt);
  const verify::sinusoids::SinusoidInput in = input_of(run, false);
  const verify::sinusoids::SinusoidDeclaration d = verify::sinusoids::axes_declaration(
      axes, t.layout, numbers_of(t.positions), in.rows, in.width);
  return finish(
      verify::sinusoids::verify_sinusoid(
          in, d, verify::sinusoids::axes_alternatives(axes, t.layout, d), run.claim, run.threads),
      run);
}

}  // namespace pev::cli
