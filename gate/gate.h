// The CI gate (`peverify check`), in the spirit of glibc's libm-test-ulps: the measured error of
// each implementation (a registry entry or a table file) per position band, against the records
// of a reviewed file. A regression is any measured figure above its record, or any element that
// is NaN, Inf or of a sign its claim fixes (docs/architecture.md §8).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/spec.h"
#include "peverify/encoding/vocabulary.h"
#include "peverify/measure/judge.h"

namespace pev::gate {

struct GateBand {
  uint64_t first, last;      // positions [first, last]
  std::string name() const;  // "0-4095"
};

// The figures a band records (NaN: not recorded) or measures. A record is kept only where it can
// be exceeded: max_abs below A (the attention factor, 1 for plain tables) and max_ulp below
// 2^p (p the output's precision), since a table of zeros meets either ceiling; where one of them
// is not kept, max_budget_ratio (the largest |error| / budget of the claim) is recorded instead.
struct BandFigures {
  double max_abs = NAN;
  double max_ulp = NAN;
  double max_budget_ratio = NAN;
  // Table subjects: the largest abs error of each group of adjacent columns (column_group_width
  // of the table's width; empty: not recorded), so that one element growing well above its own
  // columns' level fails though the band's maximum, set by other columns, still covers it.
  std::vector<double> column_max_abs;
  uint64_t elements = 0;
  // Elements no record can allow: NaN, Inf, a sign the claim fixes wrong (measured only).
  uint64_t nan = 0, inf = 0, wrong_sign = 0;
};

// How many adjacent columns share one column_max_abs record: at most 128 records a band, so a
// subject's records stay a few KB however wide its table (adjacent columns hold neighbouring
// frequencies, whose errors are alike).
int column_group_width(int table_width);

// The figures a table of zeros would score: a record at or above one gates nothing.
struct Ceilings {
  double max_abs;  // the attention factor: every |exact| is at most it
  double max_ulp;  // 2^p: |exact| / ulp_out(exact) is below it
};
Ceilings ceilings_of(const TableSpec& spec, Dtype output);

struct GateSubject {
  std::string impl;            // a registry name, or empty for a table file
  std::string table;           // a table file (.npy / .safetensors), as written in the budget file
  std::string table_path;      // ... and resolved against the budget file's folder
  TableSpec spec;              // for table files: how to read them (d_model, recipe applied)
  std::optional<int> d_model;  // as written (absent: from the table or model_config)
  std::optional<double> base;  // as written
  std::string model_config;    // as written: a config.json, relative to the budget file
  std::string model_config_path;               // ... resolved
  std::optional<nlohmann::json> rope_scaling;  // a recipe object, as written
  std::string dtype;                           // for table files: --dtype, if any
  std::string tensor;                          // for table files: --tensor, if any
  std::string layer_type;                      // with model_config: whose rotary parameters
  // For table files whose rows are not consecutive positions: a .npy of position ids (as
  // written, and resolved); a band then holds the rows whose position falls in it.
  std::string positions, positions_path;
  std::map<std::string, BandFigures> records;  // band name -> its records
  // With model_config (set where the config is read): its head_dim and its other layer types'
  // specs, which a failing band's diagnosis tries as verify's does.
  int head_dim = 0;
  std::vector<std::pair<std::string, TableSpec>> other_layer_types;
};

struct BudgetFile {
  int d_model = 512;  // the grid registry entries are measured on
  double base = default_base();
  std::vector<GateBand> bands;
  std::vector<GateSubject> subjects;
  bool completed = false;  // version or grid were missing and took their defaults
};

// The grid a budget file without one gets: d 512, the default base, four bands up to 2^24.
std::vector<GateBand> default_bands();

// Reads and validates a budget file; throws FileError (one line naming the field in words) when
// it is malformed. Missing `version` and `grid` take their defaults (check --update writes
// them); a record at or above its ceiling is refused.
BudgetFile read_budget_file(const std::string& path);
// The same from the file's text; `path` names it in messages and anchors relative paths.
BudgetFile budget_file_from_json(std::string_view text, const std::string& path);
nlohmann::json to_json(const BudgetFile& f);

struct GateOutcome {
  std::string subject;  // impl name or table path
  std::string band;
  // What was measured: "every one of N elements" (tables), or "sampled N of M positions"
  // (implementations: the blocks of band_blocks, fixed and documented in docs/architecture.md §8).
  std::string coverage;
  // A regressed band's deciding element: its position, column, value, exact value, its error and
  // what was allowed (the record, or the consistency envelope), and why (`what`).
  std::optional<measure::Finding> element;
  BandFigures measured;
  std::optional<BandFigures> recorded;  // absent: a band with no budget yet (a failure)
  Ceilings ceilings{1, 0x1p24};
  bool regressed = false;
  // A verdict no record overrides failed (table subjects; --update does not record it either):
  // consistency (an element stands out from its column), or two copies of one value the layout
  // stores twice differ. Their summaries.
  std::string structural;
  // A table band with elements outside its claim: what verify's diagnosis names
  // ("diagnosis: CAUSE: ...", the declaration as the band's rows see it); else empty.
  std::string diagnosis;
  bool skipped = false;  // beyond the implementation's valid range or the table's rows
  std::string message;
  double seconds = 0;
};

// "max_abs 2.9e-05, max_ulp 41, ...": the figures that are set, as messages show them.
std::string format_figures(const BandFigures& f);

// Whether `measured` regresses against `recorded`, and why (empty when not).
std::string regression(const BandFigures& measured, const BandFigures& recorded);

// The column group furthest above its column_max_abs record (by measured / recorded), if any.
std::optional<size_t> column_group_above_record(const BandFigures& measured,
                                                const BandFigures& recorded);

// Measures every subject in every band and compares with the records. A table subject is
// verified whole, every element of every band through verify's pass (an element that stands
// out from its column, or a copy that differs from its twin, fails the band whatever the
// records); an implementation is sampled: the first band's first 4096 rows, the others 16 blocks
// of 16 rows on a log scale. `progress` gets a line per subject. Table subjects must have their
// recipe applied (spec) already.
std::vector<GateOutcome> run_gate(const BudgetFile& file,
                                  const std::function<void(const std::string&)>& progress);

// Judges a measured band (its `measured`, `ceilings` and `structural` set) against its record:
// none is a failure, a record at a ceiling gates nothing, a figure above it regresses; a
// structural failure fails the band whatever the record. Sets `recorded`, `regressed` and
// `message`.
void judge_outcome(GateOutcome& o, const std::optional<BandFigures>& recorded);

// Compares outcomes again with the records of `file` (the same subjects and bands): what a
// changed record would make of the same measurements.
void compare_with(const BudgetFile& file, std::vector<GateOutcome>& outcomes);

// The records as measured, rounded up to two significant digits so that another machine's
// dispatch (FMA or not, vector width) does not read as a regression while real ones do; only
// the figures below their ceilings, and the budget ratio where one is not kept.
BudgetFile updated(const BudgetFile& file, const std::vector<GateOutcome>& outcomes);

// Two significant digits, rounded up; and the next such value below a record (what the test
// that lowers every record sets).
double round_up_2(double x);
double next_below_2(double record);

std::string junit_xml(const std::vector<GateOutcome>& outcomes);

}  // namespace pev::gate
