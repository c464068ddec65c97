#include "peverify/reports/study/sinusoid_scores.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "peverify/bench/roofline.h"
#include "peverify/core/sinusoids/sinusoid_registry.h"
#include "peverify/encoding/format.h"
#include "peverify/encoding/sinusoids/rope_axes.h"
#include "peverify/encoding/sinusoids/timestep.h"
#include "peverify/measure/error.h"
#include "peverify/support/json_number.h"
#include "peverify/verify/sinusoids/sinusoid_judge.h"

namespace pev::reports::study {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kRepetitions = 3;  // timed fills per entry (and store fills), median taken

// Rows whose timestep argument lies in [lo, hi).
std::vector<uint64_t> rows_between(const std::vector<double>& tau, double lo, double hi) {
  std::vector<uint64_t> rows;
  for (uint64_t r = 0; r < tau.size(); ++r)
    if (tau[r] >= lo && tau[r] < hi) rows.push_back(r);
  return rows;
}

SinusoidCase timestep_case(const std::string& preset, int width, const std::vector<double>& t,
                           const std::string& what) {
  const TimestepRecipe r = parse_timestep_recipe(preset);
  SinusoidCase c{"timestep " + preset, what, timestep_table(r, width), {}, {}};
  c.positions.axes.assign(1, {});
  for (const double x : t) c.positions.axes[0].push_back(timestep_argument(r, x));
  const std::vector<double>& tau = c.positions.axes[0];
  for (const auto& [label, lo, hi] : {std::tuple{"t < 10", 0.0, 10.0},
                                      {"10 <= t < 100", 10.0, 100.0},
                                      {"100 <= t < 1000", 100.0, 1000.0}})
    c.bands.emplace_back(label, rows_between(tau, lo, hi));
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median of the best store fill of `bytes`, over kRepetitions rounds.
double roofline_seconds(size_t bytes) {
  std::vector<unsigned char> buffer(bytes + 64);
  void* dst = buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
  std::vector<double> best;
  for (int i = 0; i < kRepetitions; ++i) {
    double round = INFINITY;
    for (const bench::Fill f : bench::kStoreFills) {
      const auto t0 = Clock::now();
      bench::fill(f, dst, nullptr, bytes);
      round = std::min(round, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    best.push_back(round);
  }
  return median(best);
}

SinusoidEntryScore score(const core::SinusoidImplementation& e, const SinusoidCase& c,
                         const verify::sinusoids::ExactValues& exact) {
  const uint64_t rows = c.positions.rows(), width = c.table.columns.size();
  const size_t bytes = rows * width * traits_of(e.output).storage_bits / 8;
  std::vector<unsigned char> out(bytes);
  std::vector<double> times;
  for (int i = 0; i < kRepetitions; ++i) {
    const auto t0 = Clock::now();
    e.fill(e, c.table, c.positions, out.data());
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  SinusoidEntryScore s{
      e.name, e.description, e.claim.describe(), std::string(name_of(e.output)), {}};
  s.seconds = median(times);
  s.values_per_s = static_cast<double>(rows * width) / s.seconds;
  s.roofline_ratio = roofline_seconds(bytes) / s.seconds;
  for (const auto& [label, band_rows] : c.bands) {
    SinusoidBandScore b;
    for (const uint64_t r : band_rows)
      for (uint64_t col = 0; col < width; ++col) {
        const size_t i = r * width + col;
        const double got = e.output == Dtype::kFloat32
                               ? static_cast<double>(reinterpret_cast<const float*>(out.data())[i])
                               : decode(reinterpret_cast<const uint16_t*>(out.data())[i], e.output);
        const verify::sinusoids::ExactValues::Value v =
            exact.at(r, static_cast<int>(col), e.output);
        const verify::sinusoids::Judged j = verify::sinusoids::judge(got, v, e.claim, e.output);
        b.holds = b.holds && j.ok;
        b.faithful = b.faithful && measure::is_faithful_encoding(got, v.exact, v.rounded, e.output,
                                                                 v.exact_is_true);
        const double error = std::isfinite(got) ? j.error : INFINITY;
        b.max_abs = std::max(b.max_abs, error);
        b.max_ulp = std::max(b.max_ulp, measure::floored_ulps(error, v.exact, e.output));
      }
    s.bands.push_back(b);
  }
  return s;
}

std::string three_digits(double x) { return fmt::format("{:.3g}", x); }

// Per case and output: the fastest entry faithful in every band; beside it, each framework
// entry's worst band.
std::vector<std::string> recommend(const std::vector<SinusoidCaseScore>& cases) {
  std::vector<std::string> out;
  for (const SinusoidCaseScore& c : cases)
    for (const char* output : {"float32", "bfloat16"}) {
      const SinusoidEntryScore* best = nullptr;
      for (const SinusoidEntryScore& e : c.entries) {
        const bool faithful = std::all_of(e.bands.begin(), e.bands.end(),
                                          [](const SinusoidBandScore& b) { return b.faithful; });
        if (e.output == output && faithful && (!best || e.seconds < best->seconds)) best = &e;
      }
      if (!best) continue;
      std::string line =
          fmt::format("{}, {} output: {} (faithful in every band, {} G values/s)", c.name, output,
                      best->name, three_digits(best->values_per_s / 1e9));
      for (const SinusoidEntryScore& e : c.entries) {
        if (e.output != output || &e == best) continue;
        size_t worst = 0;
        for (size_t i = 0; i < e.bands.size(); ++i)
          if (e.bands[i].max_abs > e.bands[worst].max_abs) worst = i;
        line += fmt::format("; {} instead: max abs error {} at {}, {}x the time", e.name,
                            three_digits(e.bands[worst].max_abs), c.bands[worst],
                            three_digits(e.seconds / best->seconds));
      }
      out.push_back(line);
    }
  return out;
}

}  // namespace

std::vector<SinusoidCase> sinusoid_cases() {
  std::vector<double> steps, sigmas;
  for (int t = 0; t < 1000; ++t) steps.push_back(t);
  for (int i = 0; i < 1000; ++i)  // a flow-matching schedule's sigmas in (0, 1), as float32
    sigmas.push_back(static_cast<float>((i + 0.5) / 1000));
  std::vector<SinusoidCase> cases = {
      timestep_case("adm", 320, steps, "ADM / LDM / SDXL / DiT's timestep embedding, t = 0 .. 999"),
      timestep_case("flux", 256, sigmas,
                    "Flux's timestep embedding of 1000 sigmas in (0, 1), times "
                    "1000 in float32")};
  const RopeAxes flux = parse_rope_axes("flux", std::nullopt);
  SinusoidCase axes{"rope flux",
                    "Flux's RoPE cos cache (rope-cos-pairs): 512 text tokens at id 0 "
                    "and a 128 x 128 image grid",
                    rope_axes_table(flux, Layout::kRopeCosPairs),
                    {},
                    {}};
  axes.positions.axes.assign(3, {});
  for (int i = 0; i < 512; ++i)
    for (auto& a : axes.positions.axes) a.push_back(0);
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 128; ++c) {
      axes.positions.axes[0].push_back(0);
      axes.positions.axes[1].push_back(r);
      axes.positions.axes[2].push_back(c);
    }
  for (const int grid : {32, 64, 128}) {
    std::vector<uint64_t> rows;
    for (uint64_t r = 0; r < axes.positions.rows(); ++r)
      if (axes.positions.axes[1][r] < grid && axes.positions.axes[2][r] < grid) rows.push_back(r);
    axes.bands.emplace_back(fmt::format("{0}x{0} grid", grid), rows);
  }
  cases.push_back(std::move(axes));
  return cases;
}

SinusoidScores study_sinusoid_scores(int threads) {
  const auto t0 = Clock::now();
  SinusoidScores s;
  for (const SinusoidCase& c : sinusoid_cases()) {
    SinusoidCaseScore cs{c.name, c.description, c.positions.rows(), c.table.columns.size(), {}, {}};
    for (const auto& [label, rows] : c.bands) cs.bands.push_back(label);
    const verify::sinusoids::ExactValues exact(c.table, c.positions, Dtype::kFloat32, threads);
    for (const core::SinusoidImplementation& e : core::sinusoid_registry())
      if (e.builds(c.table) && e.output != Dtype::kFloat16)  // the study's outputs
        cs.entries.push_back(score(e, c, exact));
    s.cases.push_back(std::move(cs));
  }
  s.recommendations = recommend(s.cases);
  s.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return s;
}

nlohmann::json to_json(const SinusoidScores& s) {
  nlohmann::json j = {{"seconds", s.seconds},
                      {"recommendations", s.recommendations},
                      {"cases", nlohmann::json::array()}};
  for (const SinusoidCaseScore& c : s.cases) {
    nlohmann::json entries = nlohmann::json::array();
    for (const SinusoidEntryScore& e : c.entries) {
      nlohmann::json bands = nlohmann::json::array();
      for (const SinusoidBandScore& b : e.bands)
        bands.push_back({{"max_abs", finite_or_null(b.max_abs)},
                         {"max_ulp", finite_or_null(b.max_ulp)},
                         {"holds", b.holds},
                         {"faithful", b.faithful}});
      entries.push_back({{"name", e.name},
                         {"description", e.description},
                         {"claim", e.claim},
                         {"output", e.output},
                         {"bands", bands},
                         {"seconds", e.seconds},
                         {"values_per_s", e.values_per_s},
                         {"roofline_ratio", e.roofline_ratio}});
    }
    j["cases"].push_back({{"name", c.name},
                          {"description", c.description},
                          {"rows", c.rows},
                          {"width", c.width},
                          {"bands", c.bands},
                          {"entries", entries}});
  }
  return j;
}

}  // namespace pev::reports::study
