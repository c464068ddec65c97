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

// Rows [row_begin, row_end) of one block of a grid: a piece of an accuracy shard.
struct Piece {
  size_t block;
  uint64_t row_begin, row_end;
};

constexpr uint64_t kPartValues = uint64_t{1} << 21;

// The parts a grid's positions are cut into: the exhaustive head in chunks of about kPartValues
// values, then all the sampled blocks together.
std::vector<std::vector<Piece>> parts_of(const Grid& g) {
  std::vector<std::vector<Piece>> parts;
  const uint64_t head = g.blocks[0].rows;
  const uint64_t chunk = std::max<uint64_t>(1, kPartValues / static_cast<uint64_t>(g.d_model));
  for (uint64_t r = 0; r < head; r += chunk) parts.push_back({{0, r, std::min(head, r + chunk)}});
  if (g.blocks.size() > 1) {
    parts.emplace_back();
    for (size_t i = 1; i < g.blocks.size(); ++i) parts.back().push_back({i, 0, g.blocks[i].rows});
  }
  return parts;
}

// The accuracy statistics of one entry over some pieces of one grid.
void measure_pieces(const core::Implementation& impl, const properties::UnderTest& ut,
                    const Grid& g, const std::vector<Piece>& pieces, ShardResult& out) {
  const properties::Budget claim = ut.budget();
  std::vector<double> w(g.d_model / 2);
  for (int k = 0; k < g.d_model / 2; ++k) w[k] = frequency(g.blocks[0].spec, k);
  const bool curve_grid = g.d_model == 512 && g.base == 1e4;
  for (const Piece& piece : pieces) {
    const Block& b = g.blocks[piece.block];
    // Whether the entry can produce the whole block decides, so that parts agree with the whole.
    const uint64_t block_rows =
        std::min<uint64_t>(b.rows, ut.max_position(g.d_model) >= b.spec.start
                                       ? ut.max_position(g.d_model) - b.spec.start + 1
                                       : 0);
    if (block_rows == 0 || !ut.can_produce(b.spec, block_rows)) continue;
    const uint64_t first = piece.row_begin, last = std::min(piece.row_end, block_rows);
    if (first >= last) continue;
    TableSpec spec = b.spec;
    spec.start = b.spec.start + first;
    const std::vector<double> got = ut.rows(spec, last - first);
    const int width = table_width(b.spec);
    for (uint64_t row = first; row < last; ++row) {
      const uint64_t pos = b.spec.start + row;
      Band& band = out.bands[band_of(out.bands, pos)];
      double row_max = 0;
      for (int c = 0; c < width; ++c) {
        const size_t i = (row - first) * width + c;
        const double x = b.exact[row * width + c];
        const oracle::ElementError e = oracle::measure(got[i], x, impl.output, 0);
        const bool number = e.category == oracle::ErrorCategory::kFinite ||
                            e.category == oracle::ErrorCategory::kSignMismatch;
        const double abs = number ? e.abs : INFINITY;
        const double angle = static_cast<double>(pos) * w[column_at(b.spec, c).pair];
        const double allowed =
            claim.allowed(x, angle, static_cast<double>(impl.steps_since_direct(pos)), impl.output);
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
        out.curve[octave] = std::max(out.curve[octave], row_max);
      }
    }
  }
}

// The suite's properties on the d 512, base 10^4 table.
void check_properties(const properties::UnderTest& ut, ShardResult& out) {
  TableSpec spec;
  spec.d_model = 512;
  const uint64_t rows = std::min<uint64_t>(8192, ut.max_position(512) + 1);
  out.verdicts.push_back(properties::check_bounded(ut, spec, rows));
  out.verdicts.push_back(properties::check_unique(ut, spec, rows));
  std::vector<properties::ShiftCase> cases;
  for (uint64_t pos : {0ull, 5ull, 100ull, 4000ull, 70000ull, 1000000ull, 16000000ull})
    for (uint64_t m : {1ull, 3ull, 1000ull})
      for (int k : {0, 1, 64, 255}) {
        TableSpec at = spec;
        at.start = pos + m;
        if (ut.can_produce(at, 1)) cases.push_back({pos, m, k});
      }
  out.verdicts.push_back(properties::check_shift(ut, spec, cases));
  properties::Verdict growth = properties::check_growth(
      ut, spec,
      properties::growth_positions(std::min<uint64_t>(ut.max_position(512), uint64_t{1} << 24)));
  out.fitted_c = growth.figures["fitted_c"];
  for (const properties::Target& t : properties::horizon_targets())
    out.horizons[t.name] = static_cast<uint64_t>(growth.figures["horizon_" + t.name]);
  out.verdicts.push_back(growth);
}

// Folds one accuracy shard into the entry's running totals (called in canonical order).
void merge_accuracy(const ShardResult& s, std::vector<Band>& bands, std::map<int, double>& curve) {
  for (size_t i = 0; i < bands.size() && i < s.bands.size(); ++i) {
    Band& b = bands[i];
    const Band& p = s.bands[i];
    b.max_abs = std::max(b.max_abs, p.max_abs);
    b.max_ulp = std::max(b.max_ulp, p.max_ulp);
    b.sum_abs += p.sum_abs;
    b.elements += p.elements;
    b.nan_inf += p.nan_inf;
    b.over_claim += p.over_claim;
  }
  for (const auto& [octave, e] : s.curve) {
    auto [it, fresh] = curve.emplace(octave, e);
    if (!fresh) it->second = std::max(it->second, e);
  }
}

// The entry's totals, error curve and claim verdict from its merged bands.
void finish_entry(const core::Implementation& impl, const std::map<int, double>& curve,
                  EntryResult& r) {
  double sum_abs = 0;
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
  const properties::Budget claim = properties::registry_entry(impl)->budget();
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

bool evaluated(const core::Implementation& impl) {
  return impl.device == core::Device::kCpu && (!impl.available || impl.available());
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

std::string ShardId::key() const {
  char buf[64];
  if (grid < 0)
    std::snprintf(buf, sizeof buf, "e%03zu-props", entry);
  else
    std::snprintf(buf, sizeof buf, "e%03zu-g%d-p%02d", entry, grid, part);
  return buf;
}

struct StudyPlan::Impl {
  std::vector<Grid> grids;
  std::vector<std::vector<std::vector<Piece>>> parts;  // grid -> part -> pieces
  std::vector<std::unique_ptr<std::once_flag>> exact_once;
};

StudyPlan::StudyPlan(const StudyConfig& config) : config_(config), impl_(new Impl) {
  impl_->grids = make_grids(config);
  for (const Grid& g : impl_->grids) {
    impl_->parts.push_back(parts_of(g));
    impl_->exact_once.push_back(std::make_unique<std::once_flag>());
  }
  const std::regex filter(config.filter.empty() ? ".*" : config.filter);
  for (const core::Implementation& e : core::registry())
    if (std::regex_search(e.name, filter)) impls_.push_back(&e);
  for (size_t i = 0; i < impls_.size(); ++i) {
    if (!evaluated(*impls_[i])) continue;
    for (size_t g = 0; g < impl_->grids.size(); ++g) {
      if (impl_->grids[g].base > impls_[i]->max_base) continue;
      for (size_t p = 0; p < impl_->parts[g].size(); ++p)
        shards_.push_back({i, static_cast<int>(g), static_cast<int>(p)});
    }
    shards_.push_back({i, -1, 0});
  }
}

StudyPlan::~StudyPlan() = default;

void StudyPlan::prepare(int threads, const std::function<void(double)>& progress) const {
  size_t total = 0, done = 0;
  for (const Grid& g : impl_->grids) total += g.blocks.size();
  for (size_t gi = 0; gi < impl_->grids.size(); ++gi)
    std::call_once(*impl_->exact_once[gi], [&] {
      for (Block& b : impl_->grids[gi].blocks) {
        b.exact = oracle::exact_values(b.spec, b.rows, threads);
        progress(static_cast<double>(++done) / total);
      }
    });
}

ShardResult StudyPlan::run(const ShardId& shard, int threads) const {
  const core::Implementation& impl = *impls_.at(shard.entry);
  const auto ut = properties::registry_entry(impl);
  ShardResult out;
  if (shard.grid < 0) {
    check_properties(*ut, out);
    return out;
  }
  Grid& g = impl_->grids.at(shard.grid);
  std::call_once(*impl_->exact_once[shard.grid], [&] {
    for (Block& b : g.blocks) b.exact = oracle::exact_values(b.spec, b.rows, threads);
  });
  for (const auto& [first, last] : report_bands(config_.max_position)) {
    Band b;
    b.first = first;
    b.last = last;
    out.bands.push_back(b);
  }
  measure_pieces(impl, *ut, g, impl_->parts[shard.grid].at(shard.part), out);
  return out;
}

std::vector<EntryResult> StudyPlan::merge(const std::vector<ShardResult>& results) const {
  if (results.size() != shards_.size())
    throw std::invalid_argument("merge: one result per shard is needed");
  std::vector<EntryResult> entries;
  std::vector<std::map<int, double>> curves(impls_.size());
  for (const core::Implementation* impl : impls_)
    entries.push_back(describe_entry(*impl, config_.max_position));
  for (size_t i = 0; i < shards_.size(); ++i) {
    EntryResult& r = entries[shards_[i].entry];
    const ShardResult& s = results[i];
    if (shards_[i].grid >= 0) {
      merge_accuracy(s, r.bands, curves[shards_[i].entry]);
    } else {
      r.verdicts = s.verdicts;
      r.fitted_c = s.fitted_c;
      r.horizons = s.horizons;
    }
  }
  for (size_t i = 0; i < impls_.size(); ++i)
    if (evaluated(*impls_[i])) finish_entry(*impls_[i], curves[i], entries[i]);
  return entries;
}

void finish_study(StudyResult& result, size_t implementations,
                  const std::function<void(const std::string&, double)>& progress) {
  if (result.config.bench) {
    bench::Config bc;
    bc.quick = true;
    bc.filter = result.config.filter;
    bc.repetitions = 3;
    bc.min_time = 0.01;
    size_t timed = 0;
    result.bench = bench::run(bc, [&](const std::string& name) {
      progress("timing " + name,
               0.8 + 0.2 * std::min(1.0, static_cast<double>(++timed) / (implementations + 4)));
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
}

StudyResult run_study(const StudyConfig& config,
                      const std::function<void(const std::string&, double)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  StudyResult result;
  result.config = config;
  const StudyPlan plan(config);
  plan.prepare(config.threads, [&](double f) { progress("exact values", 0.3 * f); });
  const std::vector<ShardId>& shards = plan.shards();
  std::vector<ShardResult> results(shards.size());
  std::atomic<size_t> finished{0};
  std::mutex progress_mutex;
  parallel_for(shards.size(), config.threads, [&](uint64_t i) {
    results[i] = plan.run(shards[i], 1);
    std::lock_guard lock(progress_mutex);
    progress(plan.impls()[shards[i].entry]->name,
             0.3 + 0.5 * static_cast<double>(++finished) / shards.size());
  });
  result.entries = plan.merge(results);
  finish_study(result, plan.impls().size(), progress);
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
