// The study as shards: its grids of (d, base) with the exhaustive head and the sampled blocks,
// what one shard measures, and how shards merge back into per-entry results.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <regex>

#include "core/cuda/modelled_bounds.h"
#include "core/generate.h"
#include "core/registry.h"
#include "crosscheck/registry_under_test.h"
#include "measure/sampling.h"
#include "oracle/table.h"
#include "reports/study.h"

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
      if (c.max_position >= kSampleRows)
        for (const measure::RowBlock& b :
             measure::log_spaced_blocks(head, c.max_position - kSampleRows, c.sampled_blocks,
                                        kSampleRows, /*include_lo=*/false)) {
          TableSpec s = spec;
          s.start = b.first;
          g.blocks.push_back({s, b.rows, {}});
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
  if (e.device == core::Device::kCuda) r.modelled = core::cuda::modelled_text(e);
  r.bands = empty_bands(max_position);
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

// The accuracy figures of one entry over some pieces of one grid.
void measure_pieces(const core::Implementation& impl, const properties::UnderTest& ut,
                    const Grid& g, const std::vector<Piece>& pieces, ShardResult& out) {
  const measure::Judge judge(g.blocks[0].spec, ut.claim(), impl.output);
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
      const double row_max =
          judge.add_row(pos, static_cast<double>(impl.steps_since_direct(pos)),
                        got.data() + (row - first) * width, b.exact.data() + row * width,
                        out.bands[band_of(out.bands, pos)].figures);
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
  for (size_t i = 0; i < bands.size() && i < s.bands.size(); ++i)
    bands[i].figures.merge(s.bands[i].figures);
  for (const auto& [octave, e] : s.curve) {
    auto [it, fresh] = curve.emplace(octave, e);
    if (!fresh) it->second = std::max(it->second, e);
  }
}

// The entry's totals, error curve and claim verdict from its merged bands.
void finish_entry(const core::Implementation& impl, const std::map<int, double>& curve,
                  EntryResult& r) {
  measure::Figures total;
  for (const Band& b : r.bands) total.merge(b.figures);
  r.max_abs = total.max_abs_or_inf();
  r.max_ulp = total.max_ulp_or_inf();
  r.elements = total.elements;
  r.mean_abs = total.mean_abs();
  for (const auto& [octave, e] : curve)
    r.error_curve.push_back({octave < 0 ? 0 : (uint64_t{1} << octave), e});
  properties::Verdict claim_verdict;
  claim_verdict.property = "claim";
  claim_verdict.holds = total.over_claim == 0;
  claim_verdict.checked = r.elements;
  claim_verdict.figures["violations"] = static_cast<double>(total.over_claim);
  claim_verdict.figures["nan_inf"] = static_cast<double>(total.not_numbers());
  claim_verdict.summary = fmt::format("{} of {} elements outside the claimed {}", total.over_claim,
                                      r.elements, impl.claim.describe());
  r.verdicts.push_back(claim_verdict);
}

bool evaluated(const core::Implementation& impl) {
  return impl.device == core::Device::kCpu && (!impl.available || impl.available());
}

}  // namespace

std::string ShardId::key() const {
  return grid < 0 ? fmt::format("e{:03}-props", entry)
                  : fmt::format("e{:03}-g{}-p{:02}", entry, grid, part);
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
  const auto ut = crosscheck::registry_entry(impl);
  ShardResult out;
  if (shard.grid < 0) {
    check_properties(*ut, out);
    return out;
  }
  Grid& g = impl_->grids.at(shard.grid);
  std::call_once(*impl_->exact_once[shard.grid], [&] {
    for (Block& b : g.blocks) b.exact = oracle::exact_values(b.spec, b.rows, threads);
  });
  out.bands = empty_bands(config_.max_position);
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

}  // namespace pev::reports
