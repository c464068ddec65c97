// The study as shards: its grids of (d, base) with the exhaustive head and the sampled blocks,
// what one shard measures, and how shards merge back into per-entry results.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <regex>

#include "peverify/adapters/table_entry.h"
#include "peverify/core/cuda/modelled_bounds.h"
#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/encoding/model_config.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/oracle/table.h"
#include "peverify/properties/consistent.h"
#include "peverify/reports/study/study.h"
#include "peverify/reports/study/study_grids.h"
#include "peverify/tables/table_file.h"

namespace pev::reports::study {
namespace {

size_t band_of(const std::vector<Band>& bands, uint64_t pos) {
  for (size_t i = 0; i < bands.size(); ++i)
    if (pos <= bands[i].last) return i;
  return bands.size() - 1;
}

std::vector<Band> empty_bands(uint64_t max_position) {
  std::vector<Band> bands;
  for (const auto& [first, last] : report_bands(max_position)) {
    Band b;
    b.first = first;
    b.last = last;
    bands.push_back(b);
  }
  return bands;
}

EntryResult describe_entry(const core::Implementation& e, uint64_t max_position) {
  EntryResult r;
  r.name = e.name;
  r.strategy = core::name_of(e.strategy);
  r.compute = core::short_name(e.compute);
  r.output = name_of(e.output);
  r.backend = core::name_of(e.backend);
  r.claim = e.claim.describe();
  r.description = e.description;
  r.max_position = e.max_position;
  r.available = !e.available || e.available();
  r.unavailable_reason = r.available ? "" : std::string(e.unavailable_reason);
  // Modelled only where it cannot run: on a device its figures are measured like the CPU's.
  if (e.device == core::Device::kCuda && !r.available) r.modelled = core::cuda::modelled_text(e);
  r.bands = empty_bands(max_position);
  return r;
}

// The accuracy figures of one entry over some row ranges of one grid: per report band (plain grids)
// or in one total (a rotary model's cache), and the first measured row missing each target.
void measure_block_rows(const core::Implementation& impl, const properties::UnderTest& ut,
                        const Grid& g, bool curve_grid, const std::vector<BlockRows>& ranges,
                        ShardResult& out) {
  const measure::Judge judge(g.spec, ut.claim(), impl.output);
  const std::vector<properties::Target>& targets = properties::horizon_targets();
  for (const BlockRows& range : ranges) {
    const Block& b = g.blocks[range.block];
    // Whether the entry can produce the whole block decides, so that parts agree with the whole.
    const uint64_t limit = ut.max_position(g.spec.d_model);
    const uint64_t block_rows =
        std::min<uint64_t>(b.rows, limit >= b.spec.start ? limit - b.spec.start + 1 : 0);
    if (block_rows == 0 || !ut.can_produce(b.spec, block_rows)) continue;
    const uint64_t first = range.row_begin, last = std::min(range.row_end, block_rows);
    if (first >= last) continue;
    TableSpec spec = b.spec;
    spec.start = b.spec.start + first;
    const std::vector<double> got = ut.rows(spec, last - first);
    const int width = table_width(b.spec);
    for (uint64_t row = first; row < last; ++row) {
      const uint64_t pos = b.spec.start + row;
      measure::Figures& figures =
          g.model.empty() ? out.bands[band_of(out.bands, pos)].figures : out.rotary;
      double row_ulp = 0;
      const double row_max =
          judge.add_row(pos, static_cast<double>(impl.steps_since_direct(pos)),
                        got.data() + (row - first) * width, b.exact.data() + row * width, figures,
                        nullptr, /*rounded=*/nullptr, &row_ulp);
      // The judge keeps the floored ulps of every number; a NaN or Inf makes them infinite.
      double& floored = g.model.empty() ? out.bands[band_of(out.bands, pos)].max_ulp_floored
                                        : out.rotary_ulp_floored;
      floored = std::max(floored, figures.not_numbers() ? INFINITY : figures.max_ulp_floored);
      out.last_measured = std::max(out.last_measured.value_or(0), pos);
      for (const properties::Target& t : targets)
        if (!(t.abs > 0 ? row_max <= t.abs : row_ulp < 1)) {
          auto [it, fresh] = out.first_failure.emplace(t.name, pos);
          if (!fresh) it->second = std::min(it->second, pos);
        }
      if (curve_grid) {
        const int octave = pos == 0 ? -1 : static_cast<int>(std::log2(static_cast<double>(pos)));
        out.curve[octave] = std::max(out.curve[octave], row_max);
      }
    }
  }
}

// The suite's properties on the first grid's table (d 512, base 10^4 by default).
void check_properties(const properties::UnderTest& ut, const TableSpec& grid, ShardResult& out) {
  const TableSpec spec = grid;
  const int d = spec.d_model;
  const uint64_t rows = std::min<uint64_t>(8192, ut.max_position(d) + 1);
  out.verdicts.push_back(properties::check_bounded(ut, spec, rows));
  out.verdicts.push_back(properties::check_unique(ut, spec, rows));
  std::vector<properties::ShiftCase> cases;
  for (uint64_t pos : {0ull, 5ull, 100ull, 4000ull, 70000ull, 1000000ull, 16000000ull})
    for (uint64_t m : {1ull, 3ull, 1000ull})
      for (int k : {0, 1, d / 8, d / 2 - 1}) {
        TableSpec at = spec;
        at.start = pos + m;
        if (ut.can_produce(at, 1)) cases.push_back({pos, m, k});
      }
  out.verdicts.push_back(properties::check_shift(ut, spec, cases));
  properties::PropertyVerdict growth = properties::check_growth(
      ut, spec,
      properties::growth_positions(std::min<uint64_t>(ut.max_position(d), uint64_t{1} << 24)));
  out.fitted_c = growth.figures["fitted_c"];
  out.verdicts.push_back(growth);
  out.verdicts.push_back(properties::check_consistent(ut, spec, rows));
}

// What the accuracy shards of one set of grids (the plain ones, or one rotary model's) add up
// to, before horizons are known.
struct Accumulated {
  std::map<std::string, uint64_t> first_failure;
  std::optional<uint64_t> last_measured;
  void add(const ShardResult& s) {
    for (const auto& [target, pos] : s.first_failure) {
      auto [it, fresh] = first_failure.emplace(target, pos);
      if (!fresh) it->second = std::min(it->second, pos);
    }
    if (s.last_measured) last_measured = std::max(last_measured.value_or(0), *s.last_measured);
  }
  // Target -> horizon over `grids`: the largest measured position every row up to which meets
  // it (a target missed from the first row has none).
  std::map<std::string, uint64_t> horizons(const std::vector<const Grid*>& grids) const {
    std::map<std::string, uint64_t> h;
    if (!last_measured) return h;
    for (const properties::Target& t : properties::horizon_targets()) {
      const auto f = first_failure.find(t.name);
      const auto at =
          horizon_of(grids, f == first_failure.end() ? std::nullopt : std::optional(f->second),
                     *last_measured);
      if (at) h[t.name] = *at;
    }
    return h;
  }
};

// Folds one plain accuracy shard into the entry's running totals (called in canonical order).
void merge_accuracy(const ShardResult& s, std::vector<Band>& bands, std::map<int, double>& curve) {
  for (size_t i = 0; i < bands.size() && i < s.bands.size(); ++i) {
    bands[i].figures.merge(s.bands[i].figures);
    bands[i].max_ulp_floored = std::max(bands[i].max_ulp_floored, s.bands[i].max_ulp_floored);
  }
  for (const auto& [octave, e] : s.curve) {
    auto [it, fresh] = curve.emplace(octave, e);
    if (!fresh) it->second = std::max(it->second, e);
  }
}

// The entry's totals, error curve and claim verdict from its merged bands.
void finish_entry(const core::Implementation& impl, const std::map<int, double>& curve,
                  EntryResult& r) {
  measure::Figures total;
  for (const Band& b : r.bands) {
    total.merge(b.figures);
    r.max_ulp_floored = std::max(r.max_ulp_floored, b.max_ulp_floored);
  }
  r.max_abs = total.max_abs_or_inf();
  r.max_ulp = total.max_ulp_or_inf();
  r.elements = total.elements;
  r.mean_abs = total.mean_abs();
  for (const auto& [octave, e] : curve)
    r.error_curve.push_back({octave < 0 ? 0 : (uint64_t{1} << octave), e});
  properties::PropertyVerdict claim_verdict;
  claim_verdict.property = "claim";
  claim_verdict.holds = total.over_claim == 0;
  claim_verdict.checked = r.elements;
  claim_verdict.figures["violations"] = static_cast<double>(total.over_claim);
  claim_verdict.figures["nan_inf"] = static_cast<double>(total.not_numbers());
  claim_verdict.summary = fmt::format("{} of {} elements outside the claimed {}", total.over_claim,
                                      r.elements, impl.claim.describe());
  r.verdicts.push_back(claim_verdict);
}

// Whether the study builds the rotary caches with this entry: the outputs models store their
// caches in, float32 and bfloat16.
bool builds_caches(const core::Implementation& impl) {
  return impl.output == Dtype::kFloat32 || impl.output == Dtype::kBFloat16;
}

// Whether the findings name this entry (config.framework_entries): it builds every model's cache
// at every position, the other entries a sample of positions.
bool is_framework_entry(const StudyConfig& c, const core::Implementation& impl) {
  for (const auto& [dtype, name] : c.framework_entries)
    if (name == impl.name) return true;
  return false;
}

// Every entry that runs here: the CPU's, and the CUDA entries where a device is present (then
// measured as the CPU's are; without one, `peverify report` shows what reports/measured holds).
bool evaluated(const core::Implementation& impl) { return !impl.available || impl.available(); }

}  // namespace

std::string ShardId::key() const {
  return grid < 0 ? fmt::format("e{:03}-props", entry)
                  : fmt::format("e{:03}-g{}-p{:02}", entry, grid, part);
}

struct StudyPlan::Impl {
  std::vector<Grid> grids;
  std::vector<std::vector<std::vector<BlockRows>>> parts;  // grid -> part -> row ranges
  std::vector<std::unique_ptr<std::once_flag>> exact_once;
};

std::vector<const core::Implementation*> select_implementations(const std::string& filter) {
  if (const auto problem = filter_problem(filter))
    throw ConfigError(fmt::format("the filter '{}' is not a usable regular expression: {}",
                                  printable(filter), *problem));
  const std::regex re(filter.empty() ? ".*" : filter);
  std::vector<const core::Implementation*> out;
  for (const core::Implementation& e : core::registry())
    if (std::regex_search(e.name, re)) out.push_back(&e);
  // A study of nothing has no figure to show; say so rather than render an empty report.
  if (out.empty())
    throw ConfigError(fmt::format(
        "the filter '{}' matches no implementation (peverify list shows them)", printable(filter)));
  return out;
}

StudyPlan::StudyPlan(const StudyConfig& config) : config_(config), impl_(new Impl) {
  impl_->grids = make_grids(config);
  for (const Grid& g : impl_->grids) {
    impl_->parts.push_back(parts_of(g));
    impl_->exact_once.push_back(std::make_unique<std::once_flag>());
  }
  impls_ = select_implementations(config.filter);
  for (size_t i = 0; i < impls_.size(); ++i) {
    if (!evaluated(*impls_[i])) continue;
    for (size_t g = 0; g < impl_->grids.size(); ++g) {
      if (impl_->grids[g].spec.base > impls_[i]->max_base) continue;
      const Grid& grid = impl_->grids[g];
      if (!grid.model.empty() && !builds_caches(*impls_[i])) continue;
      if (!grid.model.empty() && grid.every_row != is_framework_entry(config, *impls_[i])) continue;
      for (size_t p = 0; p < impl_->parts[g].size(); ++p)
        shards_.push_back({i, static_cast<int>(g), static_cast<int>(p)});
    }
    shards_.push_back({i, -1, 0});
  }
}

StudyPlan::~StudyPlan() = default;

void StudyPlan::prepare(int threads, const std::function<void(double)>& progress) const {
  // Only the grids some shard measures: a filter without the framework entries leaves their
  // every-row caches (tens of millions of exact values) unused.
  std::vector<bool> measured(impl_->grids.size(), false);
  for (const ShardId& s : shards_)
    if (s.grid >= 0) measured[static_cast<size_t>(s.grid)] = true;
  size_t total = 0, done = 0;
  for (size_t gi = 0; gi < impl_->grids.size(); ++gi)
    if (measured[gi]) total += impl_->grids[gi].blocks.size();
  for (size_t gi = 0; gi < impl_->grids.size(); ++gi)
    if (measured[gi])
      std::call_once(*impl_->exact_once[gi], [&] {
        for (Block& b : impl_->grids[gi].blocks) {
          b.exact = oracle::exact_values(b.spec, b.rows, threads);
          progress(static_cast<double>(++done) / total);
        }
      });
}

ShardResult StudyPlan::run(const ShardId& shard, int threads) const {
  const core::Implementation& impl = *impls_.at(shard.entry);
  const auto ut = adapters::registry_entry(impl);
  ShardResult out;
  if (shard.grid < 0) {
    check_properties(*ut, impl_->grids.at(0).spec, out);
    return out;
  }
  Grid& g = impl_->grids.at(shard.grid);
  std::call_once(*impl_->exact_once[shard.grid], [&] {
    for (Block& b : g.blocks) b.exact = oracle::exact_values(b.spec, b.rows, threads);
  });
  if (g.model.empty()) out.bands = empty_bands(config_.max_position);
  measure_block_rows(impl, *ut, g, /*curve_grid=*/shard.grid == 0,
                     impl_->parts[shard.grid].at(shard.part), out);
  return out;
}

std::vector<EntryResult> StudyPlan::merge(const std::vector<ShardResult>& results) const {
  if (results.size() != shards_.size())
    throw std::invalid_argument("merge: one result per shard is needed");
  const std::vector<Grid>& grids = impl_->grids;
  std::vector<const Grid*> plain;
  std::vector<size_t> model_of_grid(grids.size(), SIZE_MAX);  // index into config().rotary_models
  for (size_t g = 0; g < grids.size(); ++g)
    if (grids[g].model.empty())
      plain.push_back(&grids[g]);
    else  // a model's sampled and every-row grids are one model: an entry measures one of them
      model_of_grid[g] = static_cast<size_t>(
          std::find(config_.rotary_models.begin(), config_.rotary_models.end(), grids[g].model) -
          config_.rotary_models.begin());
  const size_t models = config_.rotary_models.size();

  std::vector<EntryResult> entries;
  std::vector<std::map<int, double>> curves(impls_.size());
  std::vector<Accumulated> plain_acc(impls_.size());
  std::vector<std::vector<Accumulated>> model_acc(impls_.size(), std::vector<Accumulated>(models));
  std::vector<std::vector<measure::Figures>> model_figures(impls_.size(),
                                                           std::vector<measure::Figures>(models));
  std::vector<std::vector<double>> model_ulp(impls_.size(), std::vector<double>(models));
  for (const core::Implementation* impl : impls_)
    entries.push_back(describe_entry(*impl, config_.max_position));
  for (size_t i = 0; i < shards_.size(); ++i) {
    const ShardId& id = shards_[i];
    EntryResult& r = entries[id.entry];
    const ShardResult& s = results[i];
    if (id.grid < 0) {
      r.verdicts = s.verdicts;
      r.fitted_c = s.fitted_c;
    } else if (const size_t m = model_of_grid[id.grid]; m == SIZE_MAX) {
      merge_accuracy(s, r.bands, curves[id.entry]);
      plain_acc[id.entry].add(s);
    } else {
      model_figures[id.entry][m].merge(s.rotary);
      model_ulp[id.entry][m] = std::max(model_ulp[id.entry][m], s.rotary_ulp_floored);
      model_acc[id.entry][m].add(s);
    }
  }
  for (size_t i = 0; i < impls_.size(); ++i) {
    if (!evaluated(*impls_[i])) continue;
    finish_entry(*impls_[i], curves[i], entries[i]);
    entries[i].horizons = plain_acc[i].horizons(plain);
    for (size_t g = 0; g < grids.size(); ++g) {
      const size_t m = model_of_grid[g];
      if (m == SIZE_MAX || model_figures[i][m].elements == 0) continue;
      if (grids[g].every_row != is_framework_entry(config_, *impls_[i])) continue;
      entries[i].models.push_back({grids[g].model, model_figures[i][m], model_ulp[i][m],
                                   model_acc[i][m].horizons({&grids[g]}), grids[g].every_row});
    }
  }
  return entries;
}

}  // namespace pev::reports::study
