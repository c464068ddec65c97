#include "reports/study.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/cuda/modelled_bounds.h"
#include "core/generate.h"
#include "core/registry.h"
#include "oracle/error_measure.h"
#include "oracle/table.h"
#include "properties/under_test.h"
#include "support/parallel.h"
#include "tables/atomic_file.h"

namespace pev::reports {
namespace {

constexpr uint64_t kSampleRows = 4;

// One table of the study: exact values for rows [start, start + rows) of one (d, base).
struct Block {
  TableSpec spec;  // spec.start = first row
  uint64_t rows;
  std::vector<double> exact;
};

struct Grid {
  int d_model;
  double base;
  std::vector<Block> blocks;  // the exhaustive head, then the sampled blocks
};

double frequency(const TableSpec& spec, int pair) {
  const FrequencyExponent e = frequency_exponent(spec, pair);
  return std::pow(spec.base, static_cast<double>(e.numerator) / e.denominator);
}

std::vector<Grid> make_grids(const StudyConfig& c) {
  std::vector<Grid> grids;
  for (const int d : c.d_models)
    for (const double base : c.bases) {
      Grid g{d, base, {}};
      TableSpec spec;
      spec.d_model = d;
      spec.base = base;
      const uint64_t head = std::max<uint64_t>(
          1, std::min<uint64_t>(c.exhaustive_positions, c.exhaustive_values / d));
      g.blocks.push_back({spec, head, {}});
      for (int i = 0; i < c.sampled_blocks && head < c.max_position; ++i) {
        const double f = std::pow(static_cast<double>(c.max_position - kSampleRows) / head,
                                  (i + 1) / static_cast<double>(c.sampled_blocks));
        TableSpec s = spec;
        s.start = std::min<uint64_t>(c.max_position - kSampleRows + 1,
                                     static_cast<uint64_t>(std::llround(head * f)));
        if (s.start >= g.blocks.back().spec.start + g.blocks.back().rows)
          g.blocks.push_back({s, kSampleRows, {}});
      }
      grids.push_back(std::move(g));
    }
  return grids;
}

size_t band_of(const std::vector<Band>& bands, uint64_t pos) {
  for (size_t i = 0; i < bands.size(); ++i)
    if (pos <= bands[i].last) return i;
  return bands.size() - 1;
}

EntryResult describe_entry(const core::Implementation& e, uint64_t max_position) {
  EntryResult r;
  r.name = e.name;
  r.strategy = core::name_of(e.strategy);
  r.compute = core::short_name(e.compute);
  r.output = name_of(e.output);
  r.backend = core::name_of(e.backend);
  r.claim = core::describe_claim(e);
  r.description = e.description;
  r.max_position = e.max_position;
  r.available = !e.available || e.available();
  r.unavailable_reason = r.available ? "" : std::string(e.unavailable_reason);
  if (e.device == core::Device::kCuda) r.modelled = core::cuda::modelled_text(e);
  for (const auto& [first, last] : report_bands(max_position)) {
    Band b;
    b.first = first;
    b.last = last;
    r.bands.push_back(b);
  }
  return r;
}

void evaluate_entry(const core::Implementation& impl, const std::vector<Grid>& grids,
                    EntryResult& r) {
  const auto ut = properties::registry_entry(impl);
  const properties::Budget claim = ut->budget();
  double sum_abs = 0;
  std::map<int, double> curve;  // octave -> max abs (d 512, base 1e4)
  for (const Grid& g : grids) {
    if (g.base > impl.max_base) continue;
    std::vector<double> w(g.d_model / 2);
    for (int k = 0; k < g.d_model / 2; ++k) w[k] = frequency(g.blocks[0].spec, k);
    const bool curve_grid = g.d_model == 512 && g.base == 1e4;
    for (const Block& b : g.blocks) {
      const uint64_t rows =
          std::min<uint64_t>(b.rows, ut->max_position(g.d_model) >= b.spec.start
                                         ? ut->max_position(g.d_model) - b.spec.start + 1
                                         : 0);
      if (rows == 0 || !ut->can_produce(b.spec, rows)) continue;
      const std::vector<double> got = ut->rows(b.spec, rows);
      const int width = table_width(b.spec);
      for (uint64_t row = 0; row < rows; ++row) {
        const uint64_t pos = b.spec.start + row;
        Band& band = r.bands[band_of(r.bands, pos)];
        double row_max = 0;
        for (int c = 0; c < width; ++c) {
          const size_t i = row * width + c;
          const double x = b.exact[i];
          const oracle::ElementError e = oracle::measure(got[i], x, impl.output, 0);
          const bool number = e.category == oracle::ErrorCategory::kFinite ||
                              e.category == oracle::ErrorCategory::kSignMismatch;
          const double abs = number ? e.abs : INFINITY;
          const double angle = static_cast<double>(pos) * w[column_at(b.spec, c).pair];
          const double allowed = claim.allowed(
              x, angle, static_cast<double>(impl.steps_since_direct(pos)), impl.output);
          band.max_abs = std::max(band.max_abs, abs);
          band.max_ulp = std::max(band.max_ulp, number ? e.ulp : INFINITY);
          band.sum_abs += number ? abs : 0;
          band.nan_inf += !number;
          band.over_claim += !(abs <= allowed);
          ++band.elements;
          row_max = std::max(row_max, abs);
        }
        if (curve_grid) {
          const int octave = pos == 0 ? -1 : static_cast<int>(std::log2(static_cast<double>(pos)));
          curve[octave] = std::max(curve[octave], row_max);
        }
      }
    }
  }
  uint64_t over = 0, nan_inf = 0;
  for (const Band& b : r.bands) {
    r.max_abs = std::max(r.max_abs, b.max_abs);
    r.max_ulp = std::max(r.max_ulp, b.max_ulp);
    sum_abs += b.sum_abs;
    r.elements += b.elements;
    over += b.over_claim;
    nan_inf += b.nan_inf;
  }
  r.mean_abs = r.elements ? sum_abs / static_cast<double>(r.elements) : 0;
  for (const auto& [octave, e] : curve)
    r.error_curve.push_back({octave < 0 ? 0 : (uint64_t{1} << octave), e});

  // The suite's properties on the d 512, base 10^4 table.
  TableSpec spec;
  spec.d_model = 512;
  const uint64_t rows = std::min<uint64_t>(8192, ut->max_position(512) + 1);
  r.verdicts.push_back(properties::check_bounded(*ut, spec, rows));
  r.verdicts.push_back(properties::check_unique(*ut, spec, rows));
  std::vector<properties::ShiftCase> cases;
  for (uint64_t pos : {0ull, 5ull, 100ull, 4000ull, 70000ull, 1000000ull, 16000000ull})
    for (uint64_t m : {1ull, 3ull, 1000ull})
      for (int k : {0, 1, 64, 255}) {
        TableSpec at = spec;
        at.start = pos + m;
        if (ut->can_produce(at, 1)) cases.push_back({pos, m, k});
      }
  r.verdicts.push_back(properties::check_shift(*ut, spec, cases));
  properties::Verdict growth = properties::check_growth(
      *ut, spec,
      properties::growth_positions(std::min<uint64_t>(ut->max_position(512), uint64_t{1} << 24)));
  r.fitted_c = growth.figures["fitted_c"];
  for (const properties::Target& t : properties::horizon_targets())
    r.horizons[t.name] = static_cast<uint64_t>(growth.figures["horizon_" + t.name]);
  r.verdicts.push_back(growth);
  properties::Verdict claim_verdict;
  claim_verdict.property = "claim";
  claim_verdict.holds = over == 0;
  claim_verdict.checked = r.elements;
  claim_verdict.figures["violations"] = static_cast<double>(over);
  claim_verdict.figures["nan_inf"] = static_cast<double>(nan_inf);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%llu of %llu elements outside the claimed %s",
                static_cast<unsigned long long>(over), static_cast<unsigned long long>(r.elements),
                claim.describe().c_str());
  claim_verdict.summary = buf;
  r.verdicts.push_back(claim_verdict);
}

}  // namespace

std::vector<std::pair<uint64_t, uint64_t>> report_bands(uint64_t max_position) {
  std::vector<std::pair<uint64_t, uint64_t>> b = {
      {0, 1023}, {1024, 8191}, {8192, 65535}, {65536, (1u << 20) - 1}};
  b.push_back({uint64_t{1} << 20, std::max<uint64_t>(max_position, uint64_t{1} << 20)});
  return b;
}

StudyConfig read_study_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw FileError("cannot read study config " + path);
  StudyConfig c;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& [key, value] : j.items()) {
      if (key == "d_models")
        c.d_models = value.get<std::vector<int>>();
      else if (key == "bases")
        c.bases = value.get<std::vector<double>>();
      else if (key == "exhaustive_positions")
        c.exhaustive_positions = value.get<uint64_t>();
      else if (key == "exhaustive_values")
        c.exhaustive_values = value.get<uint64_t>();
      else if (key == "max_position")
        c.max_position = value.get<uint64_t>();
      else if (key == "sampled_blocks")
        c.sampled_blocks = value.get<int>();
      else if (key == "filter")
        c.filter = value.get<std::string>();
      else if (key == "bench")
        c.bench = value.get<bool>();
      else
        throw FileError(path + ": unknown study setting '" + key + "'");
    }
  } catch (const nlohmann::json::exception& e) {
    throw FileError(path + ": malformed study config: " + e.what());
  }
  if (c.d_models.empty() || c.bases.empty()) throw FileError(path + ": no d_models or bases");
  for (int d : c.d_models)
    for (double b : c.bases)
      if (auto err = validate(TableSpec{d, b})) throw FileError(path + ": " + *err);
  if (c.max_position > kMaxPosition) throw FileError(path + ": max_position beyond 2^53");
  try {
    (void)std::regex(c.filter);
  } catch (const std::regex_error&) {
    throw FileError(path + ": filter is not a valid regular expression");
  }
  return c;
}

StudyResult run_study(const StudyConfig& config,
                      const std::function<void(const std::string&, double)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  StudyResult result;
  result.config = config;
  std::vector<Grid> grids = make_grids(config);
  size_t total_blocks = 0, done_blocks = 0;
  for (const Grid& g : grids) total_blocks += g.blocks.size();
  for (Grid& g : grids)
    for (Block& b : g.blocks) {
      b.exact = oracle::exact_values(b.spec, b.rows, config.threads);
      progress("exact values", 0.3 * static_cast<double>(++done_blocks) / total_blocks);
    }

  const std::regex filter(config.filter.empty() ? ".*" : config.filter);
  std::vector<const core::Implementation*> impls;
  for (const core::Implementation& e : core::registry())
    if (std::regex_search(e.name, filter)) impls.push_back(&e);
  result.entries.resize(impls.size());
  std::atomic<size_t> finished{0};
  std::mutex progress_mutex;
  parallel_for(impls.size(), config.threads, [&](uint64_t i) {
    const core::Implementation& impl = *impls[i];
    EntryResult r = describe_entry(impl, config.max_position);
    if (r.available && impl.device == core::Device::kCpu) evaluate_entry(impl, grids, r);
    result.entries[i] = std::move(r);
    std::lock_guard lock(progress_mutex);
    progress(impl.name, 0.3 + 0.5 * static_cast<double>(++finished) / impls.size());
  });

  if (config.bench) {
    bench::Config bc;
    bc.quick = true;
    bc.filter = config.filter;
    bc.repetitions = 3;
    bc.min_time = 0.01;
    size_t timed = 0;
    result.bench = bench::run(bc, [&](const std::string& name) {
      progress("timing " + name,
               0.8 + 0.2 * std::min(1.0, static_cast<double>(++timed) / (impls.size() + 4)));
    });
    for (EntryResult& e : result.entries)
      for (const bench::Result& b : result.bench->results)
        if (b.impl == e.name && b.threads == 1) {
          e.values_per_s = b.values_per_s.median;
          e.roofline_ratio = b.roofline_ratio;
        }
  }
  result.recommendations = recommend(result.entries, {"float32", "float16", "bfloat16"},
                                     {4096, 32768, 131072, 1u << 20}, {"1e-4", "1e-2", "faithful"});
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress("done", 1.0);
  return result;
}

std::vector<Recommendation> recommend(const std::vector<EntryResult>& entries,
                                      const std::vector<std::string>& dtypes,
                                      const std::vector<uint64_t>& contexts,
                                      const std::vector<std::string>& targets) {
  std::vector<Recommendation> out;
  for (const std::string& dtype : dtypes)
    for (const uint64_t context : contexts)
      for (const std::string& target : targets) {
        Recommendation r{dtype, context, target, "", ""};
        const EntryResult* best = nullptr;
        for (const EntryResult& e : entries) {
          if (e.output != dtype || !e.available || !e.values_per_s) continue;
          const auto h = e.horizons.find(target);
          if (h == e.horizons.end() || h->second + 1 < context) continue;
          if (!best || *e.values_per_s > *best->values_per_s) best = &e;
        }
        if (best) {
          char buf[256];
          std::snprintf(buf, sizeof buf,
                        "meets %s up to position %llu (sampled); %.3g values/s, %.2f of the store "
                        "roofline; max abs error %.3g over the study",
                        target.c_str(), static_cast<unsigned long long>(best->horizons.at(target)),
                        *best->values_per_s, best->roofline_ratio.value_or(0), best->max_abs);
          r.entry = best->name;
          r.evidence = buf;
        } else {
          r.evidence = "no implementation available here meets it";
        }
        out.push_back(r);
      }
  return out;
}

}  // namespace pev::reports
