// The registry's implementations under Google Benchmark, each beside the store roofline of the
// bytes it writes, measured in the same run. Used by the bench/registry_benchmark binary and by
// `peverify bench` (which adds medians, spreads and roofline ratios, see bench_report.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/spec.h"

namespace pev::bench {

// A table shape to time: one that stays in the last-level cache, one that must go to DRAM.
struct TableCase {
  std::string label;  // "8192x512": positions x d_model
  int d_model;
  uint64_t positions;
};

// "131072x4096" (positions x d_model, d even and >= 2), or nothing when the text is not one.
std::optional<TableCase> parse_table_case(std::string_view text);

struct Config {
  bool quick = false;             // the cache-sized table only, one thread, short runs
  std::string filter;             // ECMAScript regex over implementation names ("" = all)
  int repetitions = 5;            // figures are medians over these
  double min_time = 0.1;          // seconds per repetition (Google Benchmark's MinTime)
  std::vector<TableCase> tables;  // replaces table_cases(quick) when not empty
  std::vector<Layout> layouts = {Layout::kInterleaved};  // each entry is timed in each
};

// What one registered benchmark measures, keyed by its Google Benchmark name.
struct Measured {
  std::string impl;  // registry name, or the roofline's kind ("store-fill", "memcpy", ...)
  bool roofline = false;
  std::string table;  // TableCase label
  int d_model = 0;
  uint64_t positions = 0;
  int threads = 1;
  int element_bytes = 4;  // bytes per stored value: the output type's, or the roofline's
  uint64_t values = 0;    // per iteration: positions x columns
  uint64_t bytes = 0;     // written per iteration: values x element_bytes
  std::string layout = "interleaved";
  int columns = 0;  // values per row: d_model, or d_model / 2 for the rotary caches of one value
};

std::vector<TableCase> table_cases(bool quick);
std::vector<int> thread_counts(bool quick);

// Registers every CPU registry entry matching the filter (and available here) on every table
// case, layout and thread count and, for each (table, threads, columns, element size) they
// need, the rooflines of exactly that many bytes: a 2-byte entry is compared with stores of 2
// bytes per value, a cos-only cache with a buffer of half the columns. Returns what each
// benchmark measures.
std::map<std::string, Measured> register_table_benchmarks(const Config& config);

}  // namespace pev::bench
