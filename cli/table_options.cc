#include "peverify/cli/table_options.h"

#include <unistd.h>

#include <filesystem>

#include "peverify/cli/command.h"
#include "peverify/cli/enum_option.h"
#include "peverify/encoding/request.h"
#include "peverify/tables/position_ids.h"

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
  app.add_option("--positions", o.positions,
                 "number of positions (rows from --start), or a .npy of integer position ids, one "
                 "per row ([N]; [3, N] for M-RoPE's temporal, height and width)")
      ->required();
  app.add_option("--start", o.start, "first position (default 0)");
  o.base_option = app.add_option("--base", o.base, "frequency base b (default 10000)");
  app.add_option("--schedule", o.schedule, "paper: w_k = b^(-2k/d); t2t: b^(-k/(d/2-1))")
      ->transform(one_of(kSchedules));
  app.add_option("--layout", o.layout, "where sin and cos go in a row (default interleaved)")
      ->transform(one_of(all_layouts()));
  add_rotary_options(app, o.rotary);
  app.add_option("-o,--output", o.output, "output .npy file")->required();
}

namespace {

// "4096", "-1": a count (resolve_computed says what is wrong with a bad one); anything else
// names a file.
std::optional<int64_t> count_of(const std::string& text) {
  const size_t sign = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == sign) return std::nullopt;
  for (size_t i = sign; i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  try {
    return std::stoll(text);
  } catch (const std::out_of_range&) {
    throw ConfigError("--positions " + text + " is out of range");
  }
}

}  // namespace

TableRows table_rows_of(const TableOptions& o) {
  TableRequest q;
  q.rotary = rotary_request(
      o.rotary,
      o.d_model_option && o.d_model_option->count() ? std::optional<int>(o.d_model) : std::nullopt,
      o.base_option && o.base_option->count() ? std::optional<double>(o.base) : std::nullopt);
  q.schedule = o.schedule;
  q.layout = o.layout;
  q.start = o.start;
  TableRows t;
  if (const auto count = count_of(o.positions)) {
    t.spec = resolve_computed(q, *count);
    t.rows = static_cast<uint64_t>(*count);  // >= 1: resolve_computed checked it
  } else {
    if (o.start != 0)
      throw ConfigError("--start and a file of --positions both say where rows are");
    t.ids = read_position_ids(o.positions);
    // The ids' largest + 1 rows would hold every one: what the range checks must allow.
    t.spec = resolve_computed(q, static_cast<int64_t>(t.ids->max_position() + 1));
    t.rows = t.ids->rows();
    if (auto err = validate_positions(*t.ids, t.spec, t.rows))
      throw ConfigError(o.positions + ": " + *err);
    if (t.rows == 0) throw ConfigError(o.positions + ": no position ids");
    set_sequence_length(t.spec, *t.ids);
  }
  check_writable(o.output);
  return t;
}

}  // namespace pev::cli
