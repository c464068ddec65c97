// peverify generate: one registry entry's table as .npy.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "peverify/cli/command.h"
#include "peverify/cli/table_options.h"
#include "peverify/core/generate.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry.h"
#include "peverify/encoding/request.h"
#include "peverify/tables/npy_writer.h"

namespace pev::cli {
namespace {

struct GenerateOptions {
  TableOptions table;
  std::string impl;
  std::optional<int64_t> threads;  // absent: all cores
};

int run_generate(const GenerateOptions& o) {
  const core::Implementation* impl = core::find_implementation(o.impl);
  if (!impl) throw UsageError("unknown implementation '" + o.impl + "' (see peverify list)");
  const TableRows table = table_rows_of(o.table);
  const TableSpec& spec = table.spec;
  const int threads = resolve_threads(o.threads);
  const uint64_t positions = table.rows;
  if (impl->available && !impl->available())
    throw UsageError(o.impl + " cannot run here: " + std::string(impl->unavailable_reason));
  const uint64_t last = table.ids ? table.ids->max_position() : spec.start + positions - 1;
  if (last > impl->max_position || !core::claims_frequencies(*impl, spec))
    fmt::print(stderr,
               "peverify generate: warning: {} claims its accuracy only for positions <= {}, "
               "bases <= {:g} (dynamic: the rescaled base) and frequencies >= {:g}\n",
               impl->name, impl->max_position, impl->max_base, impl->min_frequency);
  const core::GeneratedTable t = table.ids ? core::generate_at(*impl, spec, *table.ids, threads)
                                           : core::generate(*impl, spec, positions, threads);
  std::vector<uint64_t> bits(t.size());
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = t.bits(i);
  write_npy(o.table.output, impl->output, t.rows, static_cast<uint64_t>(t.width), bits);
  return kExitOk;
}

}  // namespace

void add_generate_command(CLI::App& root, std::vector<Command>& commands) {
  auto opts = std::make_shared<GenerateOptions>();
  CLI::App* app =
      root.add_subcommand("generate", "Write one implementation's table as .npy (see list)");
  app->add_option("--impl", opts->impl, "registry entry, e.g. cpu/logspace/f32>f32/sleef-u10")
      ->required();
  add_table_options(*app, opts->table);
  app->add_option("--threads", opts->threads, "worker threads (default: all cores)");
  commands.push_back({app, [opts] { return run_generate(*opts); }});
}

}  // namespace pev::cli
