#include "peverify/cli/table_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

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

namespace {

enum class Flag { kDModel, kPositions, kStart, kBase, kSchedule, kLayout, kRotary, kOutput };

struct FlagWords {
  Flag flag;
  const char* help = nullptr;  // where the words depend on the use
};

// Each use's flags, in the order --help lists them; the flags that read the same for every use
// have their words in add_table_options.
std::vector<FlagWords> flags_of(TableUse use) {
  switch (use) {
    case TableUse::kMade:
      return {{Flag::kDModel,
               "d_model (even, >= 2); the rotary dimension for rope-* (required without "
               "--model-config)"},
              {Flag::kPositions,
               "number of positions (rows from --start), or a .npy of integer position ids, one "
               "per row ([N]; [3, N] for M-RoPE's temporal, height and width)"},
              {Flag::kStart, "first position (default 0)"},
              {Flag::kBase},
              {Flag::kSchedule, "paper: w_k = b^(-2k/d); t2t: b^(-k/(d/2-1))"},
              {Flag::kLayout},
              {Flag::kRotary},
              {Flag::kOutput}};
    case TableUse::kRead:
      return {{Flag::kDModel, "d_model (default: from the table's width)"},
              {Flag::kBase},
              {Flag::kRotary},
              {Flag::kLayout},
              {Flag::kStart, "position of the first row (default 0)"},
              {Flag::kPositions,
               "a .npy of integer position ids, one per row ([N]; [3, N] for M-RoPE's temporal, "
               "height and width), for rows that are not consecutive positions"},
              {Flag::kSchedule, "the frequency schedule (default paper)"}};
    case TableUse::kRotated:
      return {{Flag::kDModel,
               "the dimensions that rotate (default: the model config's, else the whole head); "
               "the rest must pass through bit for bit"},
              {Flag::kBase},
              {Flag::kRotary},
              {Flag::kStart, "position of each sequence's first token (default 0)"},
              {Flag::kPositions,
               "a .npy of integer position ids: one per token, or one per sequence index ([3, N] "
               "for M-RoPE)"}};
  }
  return {};
}

}  // namespace

void add_table_options(CLI::App& app, TableOptions& o, TableUse use) {
  for (const FlagWords& f : flags_of(use)) {
    switch (f.flag) {
      case Flag::kDModel:
        o.d_model_option = app.add_option(use == TableUse::kRotated ? "--rotary-dim" : "--d-model",
                                          o.d_model, f.help);
        break;
      case Flag::kPositions: {
        CLI::Option* positions = app.add_option("--positions", o.positions, f.help);
        if (use == TableUse::kMade) positions->required();
        break;
      }
      case Flag::kStart:
        app.add_option("--start", o.start, f.help);
        break;
      case Flag::kBase:
        o.base_option = app.add_option(
            "--base", o.base, fmt::format("frequency base b (default {:g})", default_base()));
        break;
      case Flag::kSchedule:
        app.add_option("--schedule", o.schedule, f.help)->transform(one_of(kSchedules));
        break;
      case Flag::kLayout:
        app.add_option("--layout", o.layout, "where sin and cos go in a row (default interleaved)")
            ->transform(one_of(all_layouts()));
        break;
      case Flag::kRotary:
        add_rotary_options(app, o.rotary);
        break;
      case Flag::kOutput:
        app.add_option("-o,--output", o.output, "output .npy file")->required();
        break;
    }
  }
}

RotaryRequest rotary_request(const TableOptions& o) {
  const auto given = [](const CLI::Option* option) { return option && option->count() > 0; };
  return rotary_request(o.rotary,
                        given(o.d_model_option) ? std::optional<int>(o.d_model) : std::nullopt,
                        given(o.base_option) ? std::optional<double>(o.base) : std::nullopt);
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
  q.rotary = rotary_request(o);
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
