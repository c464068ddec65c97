#include "peverify/verify/verify_benchmark.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "peverify/encoding/claim.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"
#include "peverify/support/parallel.h"
#include "peverify/tables/npy_writer.h"
#include "peverify/tables/table_stream.h"
#include "peverify/verify/verify.h"

namespace pev::verify {
namespace {

// The check a user would write instead: a float64 reference in blocks, the largest |difference|.
// It checks less (no budget, no categories, no encodings, no properties) and is the peer to beat.
constexpr const char* kNumpyCheck = R"(import sys, time, resource
import numpy as np
t0 = time.perf_counter()
table = np.load(sys.argv[1], mmap_mode="r")
n, d = table.shape
w = 10000.0 ** (-np.arange(0, d, 2) / d)
worst = 0.0
for first in range(0, n, 1024):
    pos = np.arange(first, min(n, first + 1024), dtype=np.float64)[:, None]
    ref = np.empty((pos.shape[0], d))
    ref[:, 0::2] = np.sin(pos * w)
    ref[:, 1::2] = np.cos(pos * w)
    worst = max(worst, float(np.max(np.abs(table[first:first + pos.shape[0]] - ref))))
u = resource.getrusage(resource.RUSAGE_SELF)
print(worst, time.perf_counter() - t0, u.ru_maxrss, u.ru_utime + u.ru_stime)
)";

double peak_rss_mib(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// The correctly rounded float32 table, written a block at a time.
void make_table(const std::string& path, uint64_t rows, int d_model, int threads) {
  TableSpec spec;
  spec.d_model = d_model;
  const auto engine = oracle::make_fast_engine(spec, Dtype::kFloat32);
  write_npy_rows(path, Dtype::kFloat32, rows, static_cast<uint64_t>(d_model),
                 [&](uint64_t first, uint64_t n, uint64_t* out) {
                   TableSpec part = spec;
                   part.start = first;
                   const oracle::ExactTable t = oracle::compute_table(*engine, part, n, threads);
                   for (size_t i = 0; i < t.rounded.size(); ++i)
                     out[i] = std::bit_cast<uint32_t>(static_cast<float>(t.rounded[i]));
                 });
}

verify::VerifyResult verify_once(const std::string& path, int threads) {
  const TableStream t = open_table(path, {});
  TableSpec spec;
  spec.d_model = static_cast<int>(t.width());
  verify::VerifyOptions o;
  o.spec = spec;
  o.claim = Claim::model(Dtype::kFloat32);
  o.threads = threads;
  return verify::verify_table(
      {path,
       t.description(),
       t.dtype(),
       t.rows(),
       [&t](uint64_t first, uint64_t n, double* out) { t.read_rows(first, n, out); },
       {}},
      o);
}

}  // namespace

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

VerifyBenchResult run_verify_benchmark(const VerifyBenchConfig& c,
                                       const std::function<void(const std::string&)>& progress) {
  VerifyBenchResult r;
  r.threads = resolve_threads(c.threads);
  std::string path = c.table;
  const bool made = path.empty();
  if (made) {
    path = fmt::format("{}/peverify-verify-bench-{}x{}.npy", c.work_dir, c.rows, c.d_model);
    progress(fmt::format("writing the correctly rounded {} x {} float32 table to {}", c.rows,
                         c.d_model, path));
    make_table(path, c.rows, c.d_model, c.threads);
  }
  r.table = path;
  r.bytes = std::filesystem::file_size(path);
  std::vector<double> wall, cpu;
  std::vector<std::pair<std::string, double>> stages;
  // One untimed run first, so that every timed one finds the file in the page cache (as numpy's
  // runs do after it).
  for (int i = 0; i <= c.repetitions; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = process_cpu_seconds();
    const verify::VerifyResult v = verify_once(path, c.threads);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cs = process_cpu_seconds() - c0;
    progress(fmt::format("verify run {}: {:.2f} s, {:.2f} CPU s", i, s, cs));
    if (i == 0) continue;
    wall.push_back(s);
    cpu.push_back(cs);
    r.coverage = v.oracle_coverage;
    r.rows = v.oracle.elements / static_cast<uint64_t>(table_width(v.spec));
    r.elements = v.oracle.elements;
    r.holds = v.holds();
    stages = v.seconds;
  }
  r.seconds = spread_of(wall);
  r.cpu_seconds = spread_of(cpu);
  double total = 0;
  for (const auto& [name, s] : stages) total += s;
  for (const auto& [name, s] : stages) r.share.emplace_back(name, total > 0 ? s / total : 0);
  r.peak_rss_mib = peak_rss_mib(RUSAGE_SELF);

  if (c.numpy) {
    const std::string script = c.work_dir + "/peverify-numpy-check.py";
    std::ofstream(script) << kNumpyCheck;
    std::vector<double> numpy, numpy_cpu;
    // Debian's python3-numpy (scripts/setup) is /usr/bin/python3's; a python3 earlier on PATH
    // (pyenv, a venv) may have its own numpy or none.
    std::string python = "python3";
    if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0)
      python = "/usr/bin/python3";
    for (int i = 0; i < c.repetitions; ++i) {
      FILE* p = popen(fmt::format("{} '{}' '{}' 2>&1", python, script, path).c_str(), "r");
      char line[512] = {};
      const bool got = p && std::fgets(line, sizeof line, p);
      const int status = p ? pclose(p) : -1;
      double worst = 0, seconds = 0, rss_kib = 0, cpu_s = 0;
      if (!got || status != 0 ||
          std::sscanf(line, "%lf %lf %lf %lf", &worst, &seconds, &rss_kib, &cpu_s) != 4) {
        r.numpy_note = fmt::format("no numpy figure: python3 with numpy did not run ({})",
                                   std::string(line).substr(0, 120));
        break;
      }
      numpy.push_back(seconds);
      numpy_cpu.push_back(cpu_s);
      r.numpy_peak_rss_mib = std::max(r.numpy_peak_rss_mib.value_or(0), rss_kib / 1024.0);
      r.numpy_note = fmt::format("numpy's max |table - float64 reference| = {:.3g}", worst);
      progress(fmt::format("numpy run {}: {:.2f} s, {:.2f} CPU s", i, seconds, cpu_s));
    }
    if (!numpy.empty()) {
      r.numpy_seconds = spread_of(numpy);
      r.numpy_cpu_seconds = spread_of(numpy_cpu);
    }
    std::filesystem::remove(script);
  }
  if (made) std::filesystem::remove(path);
  return r;
}

nlohmann::json to_json(const VerifyBenchResult& r) {
  const auto t = [](const Spread& x) { return to_json(x); };
  nlohmann::json j = {{"table", r.table},
                      {"rows", r.rows},
                      {"elements", r.elements},
                      {"bytes", r.bytes},
                      {"threads", r.threads},
                      {"coverage", r.coverage},
                      {"holds", r.holds},
                      {"seconds", t(r.seconds)},
                      {"cpu_seconds", t(r.cpu_seconds)},
                      {"elements_per_s", r.elements / r.seconds.median},
                      {"peak_rss_mib", r.peak_rss_mib},
                      {"numpy_note", r.numpy_note}};
  for (const auto& [stage, share] : r.share) j["share"][stage] = share;
  if (r.numpy_seconds) {
    j["numpy_seconds"] = t(*r.numpy_seconds);
    j["numpy_cpu_seconds"] = t(r.numpy_cpu_seconds.value_or(Spread{}));
    j["numpy_peak_rss_mib"] = r.numpy_peak_rss_mib.value_or(0);
    j["verify_over_numpy"] = r.seconds.median / r.numpy_seconds->median;
  }
  return j;
}

std::string to_text(const VerifyBenchResult& r) {
  std::string out = fmt::format(
      "verify {} ({} rows, {:.2f} GiB) on {} threads: {:.2f} s median ({:.2f} .. {:.2f}), "
      "{:.2f} CPU s, {:.3g} elements/s; {}; verdict {}; peak RSS {:.0f} MiB\n",
      r.table, r.rows, r.bytes / 1073741824.0, r.threads, r.seconds.median, r.seconds.min,
      r.seconds.max, r.cpu_seconds.median, r.elements / r.seconds.median, r.coverage,
      r.holds ? "PASS" : "FAIL", r.peak_rss_mib);
  if (r.numpy_seconds)
    out += fmt::format(
        "numpy check (float64 reference in blocks, max |table - ref|): {:.2f} s median ({:.2f} .. "
        "{:.2f}), {:.2f} CPU s, peak RSS {:.0f} MiB; verify / numpy = {:.2f}; {}\n",
        r.numpy_seconds->median, r.numpy_seconds->min, r.numpy_seconds->max,
        r.numpy_cpu_seconds.value_or(Spread{}).median, r.numpy_peak_rss_mib.value_or(0),
        r.seconds.median / r.numpy_seconds->median, r.numpy_note);
  else if (!r.numpy_note.empty())
    out += r.numpy_note + "\n";
  out += "share of verify's time (CPU seconds summed over threads):";
  for (const auto& [stage, share] : r.share) out += fmt::format(" {} {:.0f}%,", stage, 100 * share);
  out.back() = '\n';
  return out;
}

}  // namespace pev::verify
