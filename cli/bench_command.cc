// peverify bench: every CPU implementation beside the store roofline, medians of repetitions.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "peverify/bench/bench_report.h"
#include "peverify/bench/roofline.h"
#include "peverify/cli/command.h"
#include "peverify/cli/enum_option.h"
#include "peverify/cli/table_options.h"
#include "peverify/encoding/request.h"
#include "peverify/reports/study/study.h"
#include "peverify/support/atomic_file.h"
#include "peverify/verify/verify_benchmark.h"
#include "peverify/verify/verify_rotary_benchmark.h"

namespace pev::cli {
namespace {

struct BenchOptions {
  bool verify = false, verify_rotary = false;
  verify::VerifyBenchConfig verify_config;
  verify::VerifyRotaryBenchConfig rotary_config;
  std::optional<int64_t> rotary_tokens;
  bool quick = false;
  std::string filter;
  bool oracle = false;
  std::string json;
  int repetitions = 0;
  std::vector<std::string> tables;
  std::vector<Layout> layouts;
  // Signed and optional: checked in words (encoding/request.h), absent keeps the defaults.
  std::optional<int64_t> verify_rows, threads;
};

int run_verify_bench(const BenchOptions& o) {
  const verify::VerifyBenchResult r = verify::run_verify_benchmark(
      o.verify_config, [](const std::string& line) { fmt::print(stderr, "bench: {}\n", line); });
  write_file_atomically(o.json,
                        [&](std::ostream& out) { out << verify::to_json(r).dump(2) << "\n"; });
  std::fputs(verify::to_text(r).c_str(), stdout);
  return kExitOk;
}

int run_verify_rotary_bench(const BenchOptions& o) {
  verify::VerifyRotaryBenchConfig c = o.rotary_config;
  c.work_dir = o.verify_config.work_dir;
  c.threads = o.verify_config.threads;
  c.repetitions = o.verify_config.repetitions;
  c.numpy = o.verify_config.numpy;
  if (o.rotary_tokens) c.tokens = non_negative(*o.rotary_tokens, "--rotary-tokens");
  if (c.tokens == 0) throw UsageError("--rotary-tokens must be >= 1");
  const verify::VerifyRotaryBenchResult r = verify::run_verify_rotary_benchmark(
      c, [](const std::string& line) { fmt::print(stderr, "bench: {}\n", line); });
  write_file_atomically(o.json,
                        [&](std::ostream& out) { out << verify::to_json(r).dump(2) << "\n"; });
  std::fputs(verify::to_text(r).c_str(), stdout);
  return kExitOk;
}

int run_bench(const BenchOptions& o) {
  check_writable(o.json);  // before minutes of timing, not after
  if (o.verify_rotary) return run_verify_rotary_bench(o);
  if (o.verify) return run_verify_bench(o);
  if (const auto problem = reports::study::filter_problem(o.filter))
    throw UsageError("--filter is not a usable regular expression: " + *problem);
  // A filter no entry's name matches is a typo, not a request to time the roofline alone (a
  // filter selecting only entries this machine cannot run still does that).
  if (!o.filter.empty()) (void)reports::study::select_implementations(o.filter);
  bench::Config config;
  config.quick = o.quick;
  config.filter = o.filter;
  config.repetitions = o.repetitions > 0 ? o.repetitions : (o.quick ? 3 : 5);
  config.min_time = o.quick ? 0.02 : 0.1;
  for (const std::string& t : o.tables) {
    const std::optional<bench::TableCase> c = bench::parse_table_case(t);
    if (!c) throw UsageError("--table must be POSITIONSxD_MODEL with an even D_MODEL, not " + t);
    config.tables.push_back(*c);
  }
  if (!o.layouts.empty()) config.layouts = o.layouts;
  bench::Report report =
      bench::run(config, [](const std::string& line) { fmt::print(stderr, "bench: {}\n", line); });
  if (o.oracle) report.oracle = bench::measure_oracle(o.quick ? 0.3 : 1.0);
  const nlohmann::json j = bench::to_json(report);
  write_file_atomically(o.json, [&](std::ostream& out) { out << j.dump(2) << "\n"; });

  // Numbers aligned right explicitly: fmt 9 would put inf and nan on the left. Each result's
  // ratio is to the roofline of its own bytes: its columns of its element size (B, per value).
  fmt::print("{:<40} {:<12} {:>3} {:>2} {:>11} {:>11} {:>8}\n", "implementation", "table", "thr",
             "B", "values/s", "bytes/s", "roofline");
  for (const bench::Roofline& r : report.rooflines) {
    fmt::print("{:<40} {:<12} {:>3} {:>2} {:>11.3g} {:>11.3g} {:>8}\n",
               fmt::format("roofline ({}, {} columns)", r.best, r.columns), r.table, r.threads,
               r.element_bytes, r.bytes_per_s.median / r.element_bytes, r.bytes_per_s.median, "1");
    for (const auto& [fill, f] : r.fills)  // the store orders reported beside it
      if (!bench::is_store_fill(fill))
        fmt::print("{:<40} {:<12} {:>3} {:>2} {:>11.3g} {:>11.3g} {:>8.3f}\n", "  " + fill, r.table,
                   r.threads, r.element_bytes, f.median / r.element_bytes, f.median,
                   f.median / r.bytes_per_s.median);
  }
  for (const bench::Result& r : report.results)
    fmt::print("{:<40} {:<12} {:>3} {:>2} {:>11.3g} {:>11.3g} {:>8.3f}\n",
               r.layout == "interleaved" ? r.impl : r.impl + " " + r.layout, r.table, r.threads,
               r.element_bytes, r.values_per_s.median, r.bytes_per_s.median, r.roofline_ratio);
  if (report.oracle) {
    for (const auto& [engine, v] : report.oracle->values_per_s)
      fmt::print("oracle engine {:<22} {:>14.3g} values/s (one thread)\n", engine, v);
    if (report.oracle->speedup)
      fmt::print("oracle speedup fast/mpfr {:.0f}x, hand-off rate {:.2g}\n",
                 *report.oracle->speedup, report.oracle->handoff_rate.value_or(0));
  }
  return kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& root, std::vector<Command>& commands) {
  auto opts = std::make_shared<BenchOptions>();
  CLI::App* app = root.add_subcommand(
      "bench", "Time every CPU implementation beside the store roofline of the same buffer");
  app->add_flag("--quick", opts->quick, "the cache-sized table only, one thread, short runs");
  app->add_option("--filter", opts->filter, "regular expression over implementation names");
  app->add_flag("--oracle", opts->oracle, "also measure the oracle engines");
  app->add_option("--repetitions", opts->repetitions,
                  "repetitions per figure (default 5, quick 3)");
  app->add_flag("--verify", opts->verify,
                "time `peverify verify` on a big table beside a numpy check, instead");
  app->add_flag("--verify-rotary", opts->verify_rotary,
                "time `peverify verify-rotary` on the q of a long prefill (bfloat16 in and out) "
                "beside reading both files and a numpy check, instead");
  app->add_option("--rotary-tokens", opts->rotary_tokens,
                  "--verify-rotary: tokens of q (default 131072; 32 heads x 128)");
  app->add_option("--verify-table", opts->verify_config.table,
                  "--verify: an existing .npy table (default: make a correctly rounded one)");
  app->add_option("--verify-rows", opts->verify_rows,
                  "--verify: rows of the table it makes (default 131072)");
  app->add_option("--verify-d-model", opts->verify_config.d_model,
                  "--verify: d_model of the table it makes (default 4096)");
  app->add_option("--work-dir", opts->verify_config.work_dir,
                  "--verify: where the table is made (default /tmp)");
  app->add_option("--threads", opts->threads, "--verify: threads (default: all)");
  app->add_flag("!--no-numpy", opts->verify_config.numpy, "--verify: skip the numpy check");
  app->add_option("--table", opts->tables,
                  "a table POSITIONSxD_MODEL to time instead of the default two; repeatable");
  app->add_option("--layout", opts->layouts,
                  "time each entry in this layout (default interleaved); repeatable")
      ->transform(one_of(all_layouts()));
  app->add_option("--json", opts->json, "write the results as JSON here")->required();
  commands.push_back({app, [opts] {
                        if (opts->repetitions > 0)
                          opts->verify_config.repetitions = opts->repetitions;
                        opts->verify_config.threads = resolve_threads(opts->threads);
                        if (opts->verify_rows)
                          opts->verify_config.rows =
                              non_negative(*opts->verify_rows, "verify-rows");
                        return run_bench(*opts);
                      }});
}

}  // namespace pev::cli
