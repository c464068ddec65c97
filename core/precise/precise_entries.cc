// Registry entries of the precise strategy (ours): float64 anchors, one rotation (float64 for
// float32 outputs, float32 for the 16-bit ones), one rounding to the output, faithful below 2^24.
// See precise_fill.h for the design, direct-inl.h and precise_fill.cc for the error bounds.
#include "peverify/core/precise/precise_fill.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry_modules.h"

namespace pev::core {
namespace {

void fill_entry(const Implementation& self, const TableSpec& spec, uint64_t count, void* out) {
  precise::fill(spec, count, self.output, self.conversion, out);
}

}  // namespace

void add_precise_entries(std::vector<Implementation>& out) {
  const std::string flags = "-ffp-contract=off (explicit FMA only); Highway dynamic dispatch (" +
                            precise::compiled_targets() + ")";
  for (Dtype output : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
    Implementation e;
    e.device = Device::kCpu;
    e.strategy = Strategy::kPrecise;
    e.compute = Dtype::kFloat64;
    e.output = output;
    e.conversion = Conversion::kNearestEven;
    e.backend = Backend::kHighway;
    e.claim = Claim::faithful();
    e.max_position = claim_constants().limits.precise_max_position;
    // The rotation tables are sized with it at compile time: core/registry_test.cc checks that it
    // is claims.json's anchor_interval.
    e.anchor_interval = precise::kAnchorInterval;
    // Every recipe: its w_k in __float128 (frequencies.h), its A applied before the one rounding.
    e.recipes = every_recipe();
    e.flags = flags;
    const std::string rotation =
        output == Dtype::kFloat32
            ? "one rotation between, small outputs recomputed; double rounded once to the output"
            : "one rotation between in float (double for small values), rounded once to the output";
    e.description = "ours: double-double w, direct anchors every " +
                    std::to_string(e.anchor_interval) + " rows, " + rotation;
    e.fill = fill_entry;
    out.push_back(std::move(e));
  }
}

}  // namespace pev::core
