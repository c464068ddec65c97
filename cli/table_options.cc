#include "cli/table_options.h"

#include <unistd.h>

#include <filesystem>

#include "cli/command.h"
#include "cli/enum_option.h"

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
  TableSpec spec;
  spec.start = o.start;
  spec.schedule = o.schedule;
  spec.layout = o.layout;
  std::optional<int> d_model;
  std::optional<double> base;
  if (o.d_model_option && o.d_model_option->count()) d_model = o.d_model;
  if (o.base_option && o.base_option->count()) base = o.base;
  if (!d_model && o.rotary.model_config.empty())
    throw UsageError("--d-model is required (or --model-config)");
  spec.base = o.base;
  apply_rotary_options(o.rotary, d_model, base, spec);
  set_sequence_length(spec, o.positions);
  if (auto err = validate_range(spec, o.positions)) throw UsageError(*err);
  const uint64_t width = static_cast<uint64_t>(table_width(spec));
  if (o.positions > (uint64_t{1} << 31) / width)
    throw UsageError("a table of " + std::to_string(o.positions) + " x " + std::to_string(width) +
                     " values is larger than the 2^31 values one call writes");
  check_writable(o.output);
  return spec;
}

}  // namespace pev::cli
