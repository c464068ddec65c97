// peverify oracle: the correctly rounded reference table as .npy.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "peverify/cli/command.h"
#include "peverify/cli/enum_option.h"
#include "peverify/cli/table_options.h"
#include "peverify/encoding/format.h"
#include "peverify/encoding/request.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/positioned.h"
#include "peverify/oracle/table.h"
#include "peverify/tables/npy_writer.h"

namespace pev::cli {
namespace {

struct OracleOptions {
  TableOptions table;
  std::string dtype = "float32";  // a format, or complex64 (resolve_stored)
  oracle::EngineKind engine = oracle::EngineKind::kFast;
  std::optional<int64_t> threads;  // absent: all cores
};

int run_oracle(const OracleOptions& o) {
  const TableRows table = table_rows_of(o.table);
  const TableSpec& spec = table.spec;
  const int threads = resolve_threads(o.threads);
  const uint64_t positions = table.rows;
  const StoredType stored = resolve_stored(o.dtype, spec.layout);

  const auto t0 = std::chrono::steady_clock::now();
  const auto engine = oracle::make_engine(o.engine, spec, stored.dtype);
  const uint64_t width = static_cast<uint64_t>(table_width(spec));
  // complex64 is the polar layout's float32 (cos, sin) pairs under another header.
  write_npy_rows(
      o.table.output, stored.dtype, positions, width,
      [&](uint64_t first, uint64_t n, uint64_t* out) {
        if (table.ids)
          oracle::rounded_encodings_at(*engine, spec, *table.ids, first, n, stored.dtype, out,
                                       threads);
        else
          oracle::rounded_encodings(*engine, spec, first, n, stored.dtype, out, threads);
      },
      stored.complex);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const oracle::EngineStats& s = engine->stats();
  std::string rungs;
  for (int r = 0; r < oracle::EngineStats::kRungs; ++r)
    if (const uint64_t n = s.decided_at_rung[r].load()) rungs += fmt::format(" {}:{}", r, n);
  fmt::print(stderr,
             "peverify oracle: wrote {}: {} x {} {} ({} engine, {:.2f} s; pairs decided per "
             "rung:{}; handed to MPFR: {})\n",
             o.table.output, positions, stored.complex ? width / 2 : width, o.dtype, engine->name(),
             seconds, rungs, s.handed_off.load());
  return kExitOk;
}

}  // namespace

void add_oracle_command(CLI::App& root, std::vector<Command>& commands) {
  auto opts = std::make_shared<OracleOptions>();
  CLI::App* app = root.add_subcommand(
      "oracle", "Write the exact table, correctly rounded (round-to-nearest-even), as .npy");
  add_table_options(*app, opts->table);
  std::vector<std::string> dtypes;
  for (Dtype d : kDtypes) dtypes.emplace_back(name_of(d));
  dtypes.emplace_back(kComplex64);
  app->add_option("--dtype", opts->dtype,
                  "the stored type (default float32; bfloat16 is stored as uint16 bits; "
                  "complex64, with --layout polar, as Meta's freqs_cis: [N, d/2] cos + i sin)")
      ->check(CLI::IsMember(dtypes));
  app->add_option("--engine", opts->engine,
                  "fast (default: double-double with a proven bound, MPFR where it cannot decide) "
                  "or mpfr; both give the same bits")
      ->transform(one_of(kEngines));
  app->add_option("--threads", opts->threads, "worker threads (default: all cores)");
  commands.push_back({app, [opts] { return run_oracle(*opts); }});
}

}  // namespace pev::cli
