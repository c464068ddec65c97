// peverify oracle: the correctly rounded reference table as .npy.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "cli/command.h"
#include "encoding/format.h"
#include "oracle/engine.h"
#include "oracle/table.h"
#include "tables/npy_writer.h"

namespace pev::cli {
namespace {

struct OracleOptions {
  int d_model = 0;
  uint64_t positions = 0;
  uint64_t start = 0;
  double base = 10000.0;
  std::string schedule = "paper";
  std::string layout = "interleaved";
  std::string dtype = "float32";
  std::string engine = "mpfr";
  int threads = 0;
  std::string output;
};

template <typename T>
T parse_or_throw(std::optional<T> v, const char* what, const std::string& name) {
  if (!v) throw UsageError(std::string("unknown ") + what + " '" + name + "'");
  return *v;
}

// Fails before hours of computation rather than after.
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

int run_oracle(const OracleOptions& o) {
  TableSpec spec;
  spec.d_model = o.d_model;
  spec.base = o.base;
  spec.start = o.start;
  spec.schedule = parse_or_throw(parse_schedule(o.schedule), "schedule", o.schedule);
  spec.layout = parse_or_throw(parse_layout(o.layout), "layout", o.layout);
  const Dtype dtype = parse_or_throw(parse_dtype(o.dtype), "dtype", o.dtype);
  if (o.engine != "mpfr") throw UsageError("unknown engine '" + o.engine + "' (available: mpfr)");
  if (auto err = validate_range(spec, o.positions)) throw UsageError(*err);
  const uint64_t width = static_cast<uint64_t>(table_width(spec));
  if (o.positions > (uint64_t{1} << 31) / width)
    throw UsageError("table of " + std::to_string(o.positions) + " x " + std::to_string(width) +
                     " values is larger than the 2^31 values one oracle call writes");
  check_writable(o.output);

  const auto t0 = std::chrono::steady_clock::now();
  const auto engine = oracle::make_mpfr_engine(spec, dtype);
  const oracle::ExactTable table = oracle::compute_table(*engine, spec, o.positions, o.threads);
  std::vector<uint64_t> bits(table.rounded.size());
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = encode_exact(table.rounded[i], dtype);
  write_npy(o.output, dtype, table.rows, static_cast<uint64_t>(table.width), bits);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const oracle::EngineStats& s = engine->stats();
  std::string rungs;
  for (int r = 0; r < oracle::EngineStats::kRungs; ++r) {
    const uint64_t n = s.decided_at_rung[r].load();
    if (n) rungs += " " + std::to_string(r) + ":" + std::to_string(n);
  }
  std::fprintf(stderr, "peverify oracle: wrote %s: %llu x %d %s (%s engine, %.2f s; pairs decided per rung:%s)\n",
               o.output.c_str(), static_cast<unsigned long long>(table.rows), table.width,
               o.dtype.c_str(), std::string(engine->name()).c_str(), seconds, rungs.c_str());
  return kExitOk;
}

}  // namespace

void add_oracle_command(CLI::App& root, std::vector<Command>& commands) {
  auto opts = std::make_shared<OracleOptions>();
  CLI::App* app = root.add_subcommand(
      "oracle", "Write the exact table, correctly rounded (round-to-nearest-even), as .npy");
  app->add_option("--d-model", opts->d_model, "d_model (even, >= 2)")->required();
  app->add_option("--positions", opts->positions, "number of positions (rows)")->required();
  app->add_option("--start", opts->start, "first position (default 0)");
  app->add_option("--base", opts->base, "frequency base b (default 10000)");
  app->add_option("--schedule", opts->schedule, "paper: b^(-2k/d); t2t: b^(-k/(d/2-1))");
  app->add_option("--layout", opts->layout,
                  "interleaved, halves, rope-cos, rope-sin, rope-cos-dup, rope-sin-dup");
  app->add_option("--dtype", opts->dtype,
                  "float32, float16, bfloat16 (stored as uint16 bits) or float64");
  app->add_option("--engine", opts->engine, "oracle engine (mpfr)");
  app->add_option("--threads", opts->threads, "worker threads (default: all cores)");
  app->add_option("-o,--output", opts->output, "output .npy file")->required();
  commands.push_back({app, [opts] { return run_oracle(*opts); }});
}

}  // namespace pev::cli
