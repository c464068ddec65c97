// `peverify bench`: runs the table benchmarks and reduces them to what docs/architecture.md §8
// promises: per implementation, values/s and bytes/s (medians of the repetitions, with their
// spread) and the ratio to the best store fill of the same bytes (the table's values times the
// entry's element size) with the same threads, measured in the same run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "peverify/bench/table_benchmarks.h"
#include "peverify/support/spread.h"

namespace pev::bench {

struct Result {
  std::string impl, table, layout;
  int d_model = 0;
  uint64_t positions = 0;
  int threads = 1;
  int element_bytes = 4;  // bytes per stored value
  int columns = 0;        // values per row
  Spread values_per_s, bytes_per_s;
  double roofline_bytes_per_s = 0;  // median of the best store fill of the same bytes
  double roofline_ratio = 0;        // median bytes/s over roofline_bytes_per_s
};

struct Roofline {
  std::string table;
  int threads = 1;
  int element_bytes = 4;  // the fills write positions x columns values of this many bytes
  int columns = 0;
  uint64_t bytes = 0;         // per fill
  std::string best;           // the store fill that was fastest
  Spread bytes_per_s;         // of the best store fill
  Spread memcpy_bytes_per_s;  // copying the same number of bytes, for reference
  std::vector<std::pair<std::string, Spread>> fills;  // every store fill measured
};

struct Machine {
  std::string cpu;
  int threads = 1;
  std::vector<std::pair<std::string, std::string>> dispatch;  // module -> ISA chosen at run time
};

struct OracleThroughput {
  std::vector<std::pair<std::string, double>> values_per_s;  // engine -> values/s (one thread)
  std::optional<double> speedup;                             // fast over mpfr, same cases, same run
  std::optional<double> handoff_rate;  // fraction of elements the fast engine passed to MPFR
};

struct Report {
  Machine machine;
  std::vector<Roofline> rooflines;
  std::vector<Result> results;
  std::optional<OracleThroughput> oracle;
};

Machine describe_machine();

// Reduces per-iteration seconds (every repetition, by benchmark name) to results beside the
// roofline of the same table, threads and element size. Benchmarks without seconds are left out.
Report summarize(const std::map<std::string, Measured>& measured,
                 const std::map<std::string, std::vector<double>>& seconds);

// Runs the benchmarks the config selects; `progress` gets one line per finished benchmark.
Report run(const Config& config, const std::function<void(const std::string&)>& progress);

// Measures the oracle engines' throughput (values per second, one thread).
OracleThroughput measure_oracle(double seconds);

nlohmann::json to_json(const Report& report);

}  // namespace pev::bench
