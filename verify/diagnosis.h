// Naming the cause of a failing verdict (docs/architecture.md §8.1). Most real bugs are a
// declaration off by one field (the layout, the sign of sin, the first position, the base, the
// recipe, the pairing, the precision), not noise: each declaration that differs from the user's in
// one field is judged with the same exact oracle on sampled rows of the same data, and one is named
// only when it passes there (or accounts for 99% of the failing elements). Otherwise the failure is
// `isolated`: the count and the places, never a guess. Internal to verify.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "peverify/properties/position_map.h"
#include "peverify/properties/under_test.h"
#include "peverify/verify/readback.h"
#include "peverify/verify/verify.h"
#include "peverify/verify/verify_rotary.h"

namespace pev::verify {

// Runs only on a failing verdict (`failed`), reading sampled rows through `read` as the pass
// reads them: in file order, or, at position ids, in the order of `map`.
Diagnosis diagnose(const properties::RowReader& read, uint64_t rows, Dtype dtype,
                   const properties::PositionMap* map, const VerifyOptions& declared,
                   const VerifyResult& failed);

// The same for verify-rotary: sampled tokens of both tensors, every head of each, judged by
// verify_rotary itself under each other declaration.
Diagnosis diagnose_rotary(const RotaryTensor& input, const RotaryTensor& output,
                          const VerifyRotaryOptions& declared, const VerifyRotaryResult& failed);

// What the table and the rotation diagnoses share: how a declaration is chosen.
namespace diagnosis {

// `cause`, which must be one of the vocabulary's diagnosis_causes (a std::logic_error otherwise:
// the diagnosis then says `none`, and the tests that name the cause fail).
const std::string& documented(const std::string& cause);

// The sample: blocks of kBlockRows consecutive rows (or tokens) at kBlocks places spread on a log
// scale (errors grow with position), and the blocks holding `worst` (the rows of the verdict's
// worst elements). The first row of each block, in order, none overlapping; `rows` in all.
inline constexpr uint64_t kBlockRows = 16;
inline constexpr int kBlocks = 48;
std::vector<uint64_t> sampled_blocks(uint64_t rows, const std::vector<uint64_t>& worst);

// A declaration that accounts for this share of the failing elements is named even where a few
// still fail (they are said as isolated).
inline constexpr double kExplains = 0.99;

// The sampled elements outside a declaration's claim, and how many rows (tokens) and sampled
// blocks hold them.
struct Failures {
  uint64_t elements = 0, rows = 0, blocks = 0;
  // Spread over rows and blocks, as a wrong declaration fails: a looser claim or another
  // declaration is never named for a corruption of one or two elements.
  bool systematic(size_t sampled_blocks) const {
    return rows >= 3 && blocks >= std::min<uint64_t>(3, sampled_blocks);
  }
};

// A declaration that differs from the user's in one field, as the diagnosis says it.
struct Alternative {
  std::string cause, detail;
  std::vector<std::string> flags;  // empty: no declaration states it (a bug to fix)
  bool loosens_claim = false;      // compute: a weaker claim, tried after every structural cause
  int64_t positions_shift = 0;     // positions: how far the data's are from the declared ones
};

// The first alternative under which every sampled failing element passes (structural ones before
// looser claims), else the one that accounts for the most, if at least kExplains; otherwise
// `isolated` with `none_passes` said. `failing(i, limit)` counts the sampled elements failing
// under alternative i, nullopt where the oracle cannot evaluate it (it explains nothing); it may
// stop counting once the count passes `limit` (any count above it: the alternative cannot be the
// one named), so that wrong declarations cost a block or two, not the whole sample.
Diagnosis choose(const std::vector<Alternative>& alternatives, uint64_t failing_as_declared,
                 const std::function<std::optional<uint64_t>(size_t, uint64_t)>& failing,
                 const std::string& sampled, const std::function<Diagnosis(std::string)>& isolated);

// The first three distinct places the failing verdicts' worst elements name, as `name` says
// each, joined by commas: what an isolated diagnosis shows.
std::string first_places(const std::vector<properties::PropertyVerdict>& verdicts,
                         const std::function<std::string(const properties::Finding&)>& name);

// `x` rounded to nearest (ties to even) in format `t`.
double rounded_to(double x, Dtype t);

// The table with the frequencies `w(k)` in place of its own, for positions below `positions_end`,
// as the oracle can evaluate it (its attention factor kept).
TableSpec with_frequencies(const TableSpec& s, uint64_t positions_end,
                           const std::function<double(int)>& w);

// The table with its frequencies rounded to `t` (from float32, as a framework casts inv_freq).
TableSpec with_rounded_frequencies(const TableSpec& s, uint64_t positions_end, Dtype t);

// The recipe-not-applied alternative's detail (transformers#32330 for llama3).
std::string unscaled_detail(RopeType type);

// Every id of `p` plus `by`; nullopt where one would fall below 0.
std::optional<RowPositions> shifted(const RowPositions& p, int64_t by);

// The offset most rows' positions read back agree on (`offsets`: read back minus declared, one
// per row): the median rounded, where at least half lie within 0.5 of it; else nullopt.
std::optional<int64_t> estimated_shift(std::vector<double> offsets);

// The offset the read-back rows' positions put them at (estimated_shift): every row where sin is
// held (modulo the read-back period), and where the layout holds cos alone the rows declared
// below 3/8 of the period (their acos is unambiguous there). None for M-RoPE.
std::optional<int64_t> shift_of_rows(const readback::Observations& o, const readback::ReadBack& r);

// What tables and rotations declare alike: the spec (d, base, recipe, first position) and where
// the rows (tokens) are.
struct DeclaredSpec {
  TableSpec spec;
  // The rows' ids: the user's, or (a rotation without ids) the sampled tokens' positions; null:
  // spec.start + the row.
  const RowPositions* ids = nullptr;
  bool ids_given = false;      // the user gave ids (else a shift is said as --start)
  std::string ids_name;        // as the verdict names the ids
  uint64_t positions_end = 0;  // one past the largest position of the whole table
  bool from_config = false;    // the parameters came from a model config
  const std::vector<std::pair<std::string, TableSpec>>* other_layer_types = nullptr;
  // The head's width where only spec.d_model of it rotates (a config's partial rotary, or the
  // rotation's tensors); 0: unknown.
  int head_dim = 0;
  // The offset the data's own angles put the rows at (estimated_shift), tried where it is beyond
  // the +-8 every diagnosis tries.
  std::optional<int64_t> estimated_shift;
  std::string width_flag;  // "--d-model" or "--rotary-dim"
  std::string rows;        // "rows" or "tokens"
  // What the sampled data was built with (verify/readback.h); null: not read back (M-RoPE).
  const readback::Observations* observed = nullptr;
  const readback::ReadBack* read_back = nullptr;
  // The positions alternatives of the read-back remap, one stream: every row's (a table), or
  // the sampled tokens' (a rotation), indexed as readback::Row::index; null: none tried.
  const RowPositions* declared_positions = nullptr;
  // Whether the row (token) the declaration puts at this position comes back unrotated, read
  // from the data; nullopt where none is there. Empty: a bound is said as the sampled rows'.
  std::function<std::optional<bool>(uint64_t position)> unrotated_at;
  // The position of the row (token) at this index were the positions to run on through the
  // sequence; empty where they do as declared.
  std::function<uint64_t(uint64_t index)> global_position;
};

// One of them with one field changed: the spec, and the ids where they change.
struct SpecAlternative {
  Alternative said;
  TableSpec spec;
  std::optional<RowPositions> ids;  // other ids, or the declared ones
};

// The alternatives of the spec both diagnoses try, most specific first: positions (or every id)
// off by 1 to 8, M-RoPE's sections (every section at the temporal ids, sglang#35345; the other
// interleaving; each other order), the config's other layer types, the recipe not applied, the
// frequencies rounded to bfloat16 or float16 or with their exponent over the whole head, and
// other common bases.
std::vector<SpecAlternative> spec_alternatives(const DeclaredSpec& d);

// The read-back's generators in that catalogue (readback_positions.cc, readback_frequencies.cc):
// the positions' patterns (one position, unrotated past a bound, modulo a length, restarts, global
// positions, a coarser grid); the amplitude, a rotation twice, the recipe's own parameters, the
// interpolation over the base, rope_parameters not read, the other schedule; and the base, the
// linear factor and the frequencies fitted to what was read back.
void read_back_positions(const DeclaredSpec& d, std::vector<SpecAlternative>& out);
void read_back_recipe(const DeclaredSpec& d, std::vector<SpecAlternative>& out);
void read_back_fits(const DeclaredSpec& d, std::vector<SpecAlternative>& out);

}  // namespace diagnosis
}  // namespace pev::verify
