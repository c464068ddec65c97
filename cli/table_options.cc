#include "cli/table_options.h"

#include <unistd.h>

#include <filesystem>

#include "cli/command.h"
#include "cli/enum_option.h"
#include "encoding/request.h"

namespace pev::cli {

void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError("cannot write " + path + ": no such directory");
  if (::access(dir.c_str(), W_OK) != 0)
    throw UsageError("cannot write " + path + ": directory is not writable");
  if (fs::is_directory(p, ec)) throw UsageError("cannot write " + path + ": is a directory");
}

void add_table_options(CLI::App& app, TableOptions& o) {
  o.d_model_option = app.add_option(
      "--d-model", o.d_model,
      "d_model (even, >= 2); the rotary dimension for rope-* (required without --model-config)");
  app.add_option("--positions", o.positions, "number of positions (rows)")->required();
  app.add_option("--start", o.start, "first position (default 0)");
  o.base_option = app.add_option("--base", o.base, "frequency base b (default 10000)");
  app.add_option("--schedule", o.schedule, "paper: w_k = b^(-2k/d); t2t: b^(-k/(d/2-1))")
      ->transform(one_of(kSchedules));
  app.add_option("--layout", o.layout, "where sin and cos go in a row (default interleaved)")
      ->transform(one_of(all_layouts()));
  add_rotary_options(app, o.rotary);
  app.add_option("-o,--output", o.output, "output .npy file")->required();
}

TableSpec table_spec_of(const TableOptions& o) {
  TableRequest q;
  q.rotary = rotary_request(
      o.rotary,
      o.d_model_option && o.d_model_option->count() ? std::optional<int>(o.d_model) : std::nullopt,
      o.base_option && o.base_option->count() ? std::optional<double>(o.base) : std::nullopt);
  q.schedule = o.schedule;
  q.layout = o.layout;
  q.start = o.start;
  const TableSpec spec = resolve_computed(q, o.positions);
  check_writable(o.output);
  return spec;
}

}  // namespace pev::cli
