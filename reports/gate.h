// The CI gate (`peverify check`), in the spirit of glibc's libm-test-ulps: the measured error of
// each implementation (a registry entry or a table file) per position band, against the budgets
// recorded in a reviewed file. A regression is any measured figure above its record.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "encoding/spec.h"

namespace pev::reports {

struct GateBand {
  uint64_t first, last;      // positions [first, last]
  std::string name() const;  // "0-4095"
};

// What is measured in a band, and what the budget file records.
struct BandFigures {
  double max_abs = 0;
  double max_ulp = 0;
  uint64_t elements = 0;
};

struct GateSubject {
  std::string impl;                            // a registry name, or empty for a table file
  std::string table;                           // a table file (.npy / .safetensors), or empty
  TableSpec spec;                              // for table files: how to read them
  std::string dtype;                           // for table files: --dtype, if any
  std::string tensor;                          // for table files: --tensor, if any
  std::map<std::string, BandFigures> budgets;  // band name -> recorded maxima
};

struct BudgetFile {
  int d_model = 512;  // the grid registry entries are measured on
  double base = 10000.0;
  std::vector<GateBand> bands;
  std::vector<GateSubject> subjects;
};

// Reads and validates a budget file; throws FileError (one line) when it is malformed.
BudgetFile read_budget_file(const std::string& path);
nlohmann::json to_json(const BudgetFile& f);

struct GateOutcome {
  std::string subject;  // impl name or table path
  std::string band;
  BandFigures measured;
  std::optional<BandFigures> recorded;  // absent: a band with no budget yet (a failure)
  bool regressed = false;
  bool skipped = false;  // beyond the implementation's valid range or the table's rows
  std::string message;
  double seconds = 0;
};

// Measures every subject in every band (the first band exhaustively up to 4096 rows, others in
// blocks of 16 rows on a log scale) and compares with the records. `progress` gets a line per
// subject.
std::vector<GateOutcome> run_gate(const BudgetFile& file,
                                  const std::function<void(const std::string&)>& progress);

// The budgets as measured, rounded up to two significant digits so that another machine's
// dispatch (FMA or not, vector width) does not read as a regression while real ones do.
BudgetFile updated(const BudgetFile& file, const std::vector<GateOutcome>& outcomes);

std::string junit_xml(const std::vector<GateOutcome>& outcomes);

}  // namespace pev::reports
