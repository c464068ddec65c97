#include "peverify/verify/verify_rotary_benchmark.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "peverify/encoding/format.h"
#include "peverify/oracle/rotation.h"
#include "peverify/support/parallel.h"
#include "peverify/tables/npy_writer.h"
#include "peverify/tables/table_stream.h"
#include "peverify/verify/verify_rotary.h"

namespace pev::verify {
namespace {

// Llama 3's rope_theta: the base of the q both checks rotate.
constexpr double kBase = 500000.0;

// The check a user would write: the float64 rotation of the bfloat16 input, max |out - ref|.
constexpr const char* kNumpyRotaryCheck = R"(import sys, time
import numpy as np
t0 = time.perf_counter()
def bf16(path, h, d):
    u = np.load(path, mmap_mode="r")
    return lambda a, b: (u[a * h:b * h].astype(np.uint32) << 16).view(np.float32).reshape(b - a, h, d)
h, d = int(sys.argv[3]), int(sys.argv[4])
q, out = bf16(sys.argv[1], h, d), bf16(sys.argv[2], h, d)
n = np.load(sys.argv[1], mmap_mode="r").shape[0] // h
inv = float(sys.argv[5]) ** (-np.arange(0, d, 2) / d)
worst = 0.0
for a in range(0, n, 2048):
    b = min(n, a + 2048)
    ang = np.arange(a, b, dtype=np.float64)[:, None, None] * inv
    x = q(a, b).astype(np.float64)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    ref = np.concatenate((x1 * np.cos(ang) - x2 * np.sin(ang), x2 * np.cos(ang) + x1 * np.sin(ang)), -1)
    worst = max(worst, float(np.max(np.abs(out(a, b) - ref))))
print(worst, time.perf_counter() - t0)
)";

RotationSpec spec_of(const VerifyRotaryBenchConfig& c) {
  RotationSpec s;
  s.table = grid_spec(c.head_dim, kBase);
  s.table.layout = Layout::kRopeCosSin;
  s.head_dim = c.head_dim;
  return s;
}

// q: bfloat16 values of a fixed pseudo-random sequence; out: its exact rotation, correctly
// rounded to bfloat16 (what a faultless kernel writes). [tokens x heads, head_dim] each.
void make_files(const VerifyRotaryBenchConfig& c, const std::string& q, const std::string& out) {
  const uint64_t rows = c.tokens * static_cast<uint64_t>(c.heads);
  const auto bits_of = [](uint64_t i) {
    uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
    // A bfloat16 of sign, exponent 2^-3 .. 2^1 and a random significand.
    return (z >> 63) << 15 | (124 + (z >> 40) % 5) << 7 | (z & 0x7f);
  };
  write_npy_rows(q, Dtype::kBFloat16, rows, static_cast<uint64_t>(c.head_dim),
                 [&](uint64_t first, uint64_t n, uint64_t* o) {
                   for (uint64_t i = 0; i < n * c.head_dim; ++i)
                     o[i] = bits_of(first * c.head_dim + i);
                 });
  const oracle::RotationOracle rotation(spec_of(c), Dtype::kBFloat16, oracle::EngineKind::kFast);
  RowPositions positions;
  positions.streams.assign(1, std::vector<uint64_t>(c.tokens));
  for (uint64_t t = 0; t < c.tokens; ++t) positions.streams[0][t] = t;
  write_npy_rows(out, Dtype::kBFloat16, rows, static_cast<uint64_t>(c.head_dim),
                 [&](uint64_t first, uint64_t n, uint64_t* o) {
                   // Whole tokens (every head) share their cos and sin; else row by row.
                   const bool whole = first % c.heads == 0 && n % c.heads == 0;
                   const int heads = whole ? c.heads : 1;
                   const uint64_t nt = n / static_cast<uint64_t>(heads), per = 256;
                   parallel_for((nt + per - 1) / per, c.threads, [&](uint64_t part) {
                     const uint64_t t0 = part * per, m = std::min(per, nt - t0);
                     const uint64_t row0 = first + t0 * heads, count = m * heads * c.head_dim;
                     std::vector<double> x(count);
                     for (uint64_t i = 0; i < count; ++i)
                       x[i] = decode(bits_of(row0 * c.head_dim + i), Dtype::kBFloat16);
                     std::vector<uint64_t> tokens(m);
                     for (uint64_t t = 0; t < m; ++t)
                       tokens[t] = (row0 / heads + t) / (c.heads / heads);
                     oracle::RotatedValues v;
                     rotation.rotate(positions, tokens.data(), m, heads, x.data(), v);
                     for (uint64_t i = 0; i < count; ++i)
                       o[(row0 - first) * c.head_dim + i] =
                           encode_exact(v.rounded[i], Dtype::kBFloat16);
                   });
                 });
}

}  // namespace

VerifyRotaryBenchResult run_verify_rotary_benchmark(
    const VerifyRotaryBenchConfig& c, const std::function<void(const std::string&)>& progress) {
  VerifyRotaryBenchResult r;
  r.tokens = c.tokens, r.heads = c.heads, r.head_dim = c.head_dim;
  r.threads = resolve_threads(c.threads);
  const std::string q = fmt::format("{}/peverify-rotary-bench-q.npy", c.work_dir);
  const std::string out = fmt::format("{}/peverify-rotary-bench-out.npy", c.work_dir);
  progress(fmt::format("writing q ({} x {} x {} bfloat16) and its correctly rounded rotation",
                       c.tokens, c.heads, c.head_dim));
  make_files(c, q, out);
  r.bytes = std::filesystem::file_size(q) + std::filesystem::file_size(out);
  ReadOptions read;
  read.dtype = Dtype::kBFloat16;
  const TableStream x = open_table(q, read), y = open_table(out, read);
  verify::VerifyRotaryOptions o;
  o.spec = spec_of(c);
  o.geometry = verify::geometry_of(
      {c.tokens, static_cast<uint64_t>(c.heads), static_cast<uint64_t>(c.head_dim)},
      verify::RotaryAxes::kTokensHeadsDim);
  o.claim = Claim::Kind::kStrict;  // the output is the correctly rounded one: every bit judged
  o.threads = c.threads;
  const auto reader = [](const TableStream& t) {
    return [&t](uint64_t first, uint64_t n, double* out) { t.read_rows(first, n, out); };
  };
  std::vector<double> wall, cpu, reading;
  for (int i = 0; i <= c.repetitions; ++i) {  // run 0 untimed: the files into the page cache
    auto t0 = std::chrono::steady_clock::now();
    const uint64_t block = 4096;
    parallel_for((x.rows() + block - 1) / block, c.threads, [&](uint64_t b) {
      thread_local std::vector<double> buf;
      const uint64_t n = std::min(block, x.rows() - b * block);
      buf.resize(n * x.width());
      x.read_rows(b * block, n, buf.data());
      y.read_rows(b * block, n, buf.data());
    });
    const double read_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t0 = std::chrono::steady_clock::now();
    const double c0 = process_cpu_seconds();
    const verify::VerifyRotaryResult v =
        verify::verify_rotary({q, x.description(), x.dtype(), reader(x)},
                              {out, y.description(), y.dtype(), reader(y)}, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    progress(fmt::format("run {}: read {:.2f} s, verify-rotary {:.2f} s", i, read_s, s));
    if (i == 0) continue;
    wall.push_back(s), cpu.push_back(process_cpu_seconds() - c0), reading.push_back(read_s);
    r.elements = v.elements;
    r.holds = v.holds();
  }
  r.seconds = spread_of(wall), r.cpu_seconds = spread_of(cpu), r.read_seconds = spread_of(reading);
  if (c.numpy) {
    const std::string script = c.work_dir + "/peverify-numpy-rotary-check.py";
    std::ofstream(script) << kNumpyRotaryCheck;
    std::vector<double> numpy;
    for (int i = 0; i < c.repetitions; ++i) {
      FILE* p = popen(fmt::format("/usr/bin/python3 '{}' '{}' '{}' {} {} {:.17g} 2>&1", script, q,
                                  out, c.heads, c.head_dim, kBase)
                          .c_str(),
                      "r");
      char line[512] = {};
      const bool got = p && std::fgets(line, sizeof line, p);
      const int status = p ? pclose(p) : -1;
      double worst = 0, seconds = 0;
      if (!got || status != 0 || std::sscanf(line, "%lf %lf", &worst, &seconds) != 2) {
        r.numpy_note = fmt::format("no numpy figure: /usr/bin/python3 with numpy did not run ({})",
                                   std::string(line).substr(0, 120));
        break;
      }
      numpy.push_back(seconds);
      r.numpy_note = fmt::format("numpy's max |out - float64 rotation| = {:.3g}", worst);
      progress(fmt::format("numpy run {}: {:.2f} s", i, seconds));
    }
    if (!numpy.empty()) r.numpy_seconds = spread_of(numpy);
    std::filesystem::remove(script);
  }
  std::filesystem::remove(q);
  std::filesystem::remove(out);
  return r;
}

nlohmann::json to_json(const VerifyRotaryBenchResult& r) {
  const auto t = [](const Spread& x) { return to_json(x); };
  nlohmann::json j = {{"tokens", r.tokens},
                      {"heads", r.heads},
                      {"head_dim", r.head_dim},
                      {"elements", r.elements},
                      {"bytes", r.bytes},
                      {"threads", r.threads},
                      {"holds", r.holds},
                      {"seconds", t(r.seconds)},
                      {"cpu_seconds", t(r.cpu_seconds)},
                      {"read_seconds", t(r.read_seconds)},
                      {"numpy_note", r.numpy_note}};
  if (r.numpy_seconds) {
    j["numpy_seconds"] = t(*r.numpy_seconds);
    j["verify_over_numpy"] = r.seconds.median / r.numpy_seconds->median;
  }
  return j;
}

std::string to_text(const VerifyRotaryBenchResult& r) {
  std::string out = fmt::format(
      "verify-rotary of q {} x {} heads x {} bfloat16 (in and out {:.2f} GiB) on {} threads, "
      "every element strict: {:.2f} s median ({:.2f} .. {:.2f}), {:.2f} CPU s, verdict {}; "
      "reading both files alone {:.2f} s\n",
      r.tokens, r.heads, r.head_dim, r.bytes / 1073741824.0, r.threads, r.seconds.median,
      r.seconds.min, r.seconds.max, r.cpu_seconds.median, r.holds ? "PASS" : "FAIL",
      r.read_seconds.median);
  if (r.numpy_seconds)
    out += fmt::format(
        "numpy check (float64 rotation, max |out - ref|): {:.2f} s median ({:.2f} .. {:.2f}); "
        "verify-rotary / numpy = {:.2f}; {}\n",
        r.numpy_seconds->median, r.numpy_seconds->min, r.numpy_seconds->max,
        r.seconds.median / r.numpy_seconds->median, r.numpy_note);
  else if (!r.numpy_note.empty())
    out += r.numpy_note + "\n";
  return out;
}

}  // namespace pev::verify
