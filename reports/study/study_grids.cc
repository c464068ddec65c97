#include "peverify/reports/study/study_grids.h"

#include <algorithm>

#include "peverify/encoding/model_presets.h"
#include "peverify/measure/sampling.h"

namespace pev::reports::study {
namespace {

// Head rows of a grid of width d, then blocks sampled on a log scale up to `last`.
Grid grid_of(std::string model, const TableSpec& spec, uint64_t head_rows, uint64_t last,
             int sampled_blocks) {
  Grid g{std::move(model), spec, 0, {}};
  const uint64_t head = std::max<uint64_t>(1, std::min(head_rows, last + 1));
  g.blocks.push_back({spec, head, {}});
  g.last_position = head - 1;
  if (last + 1 >= head + kSampleRows)
    for (const measure::RowBlock& b :
         measure::log_spaced_blocks(head, last + 1 - kSampleRows, sampled_blocks, kSampleRows,
                                    /*include_lo=*/false)) {
      TableSpec s = spec;
      s.start = b.first;
      g.blocks.push_back({s, b.rows, {}});
      g.last_position = std::max(g.last_position, b.first + b.rows - 1);
    }
  return g;
}

}  // namespace

std::vector<Grid> make_grids(const StudyConfig& c) {
  std::vector<Grid> grids;
  for (const int d : c.d_models)
    for (const double base : c.bases) {
      const uint64_t head = std::min<uint64_t>(c.exhaustive_positions, c.exhaustive_values / d);
      // The plain grids sample up to max_position - kSampleRows + kSampleRows - 1.
      grids.push_back(grid_of("", grid_spec(d, base), head,
                              std::max<uint64_t>(c.max_position, kSampleRows) - 1,
                              c.sampled_blocks));
    }
  for (const std::string& name : c.rotary_models) {
    // read_study_config checked the names.
    const ModelRope model = *model_preset(name);
    TableSpec spec = spec_of(model, Layout::kRopeCosSin, 0, c.rotary_positions);
    const uint64_t head =
        std::min<uint64_t>(c.exhaustive_positions, c.exhaustive_values / spec.d_model);
    grids.push_back(grid_of(name, spec, head, c.rotary_positions - 1, c.sampled_blocks));
    if (c.framework_entries.empty()) continue;
    grids.push_back(grid_of(name, spec, c.rotary_positions, c.rotary_positions - 1, 0));
    grids.back().every_row = true;
  }
  return grids;
}

std::vector<std::vector<BlockRows>> parts_of(const Grid& g) {
  constexpr uint64_t kPartValues = uint64_t{1} << 21;
  std::vector<std::vector<BlockRows>> parts;
  const uint64_t head = g.blocks[0].rows;
  const uint64_t chunk =
      std::max<uint64_t>(1, kPartValues / static_cast<uint64_t>(table_width(g.spec)));
  for (uint64_t r = 0; r < head; r += chunk) parts.push_back({{0, r, std::min(head, r + chunk)}});
  if (g.blocks.size() > 1) {
    parts.emplace_back();
    for (size_t i = 1; i < g.blocks.size(); ++i) parts.back().push_back({i, 0, g.blocks[i].rows});
  }
  return parts;
}

std::optional<uint64_t> horizon_of(const std::vector<const Grid*>& grids,
                                   std::optional<uint64_t> first_failure, uint64_t max_position) {
  const uint64_t limit = first_failure ? std::min(*first_failure - 1, max_position) : max_position;
  if (first_failure && *first_failure == 0) return std::nullopt;
  std::optional<uint64_t> best;
  for (const Grid* g : grids)
    for (const Block& b : g->blocks) {
      if (b.spec.start > limit) continue;
      const uint64_t last = std::min(b.spec.start + b.rows - 1, limit);
      if (!best || last > *best) best = last;
    }
  return best;
}

}  // namespace pev::reports::study
