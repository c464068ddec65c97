#include "peverify/adapters/table_entry.h"

#include <algorithm>

#include "peverify/core/generate.h"
#include "peverify/core/recipe.h"

namespace pev::adapters {
namespace {

// What one row request may cost the suite in rotations of one pair (a naive recurrence pays
// pos * d/2 of them for any row; emulated float16 arithmetic makes each cost ~100 ns).
constexpr uint64_t kWorkLimit = uint64_t{1} << 22;

class RegistryEntry final : public properties::UnderTest {
 public:
  explicit RegistryEntry(const core::Implementation& impl) : impl_(impl) {}
  std::string name() const override { return impl_.name; }
  Dtype output() const override { return impl_.output; }
  Claim claim() const override { return impl_.claim; }
  std::vector<double> rows(const TableSpec& spec, uint64_t count) const override {
    return core::generate(impl_, spec, count).values();
  }
  // The recipes the entry computes (every one), in every layout.
  properties::Scope scope() const override {
    properties::Scope s;
    s.recipes = impl_.recipes;
    s.layouts = all_layouts();
    return s;
  }
  bool can_produce(const TableSpec& spec, uint64_t count) const override {
    if (impl_.available && !impl_.available()) return false;
    if (!scope().covers(spec)) return false;
    if (!core::claims_frequencies(impl_, spec)) return false;
    return count >= 1 && spec.start + count - 1 <= max_position(spec.d_model);
  }
  uint64_t max_position(int d_model) const override {
    // A naive recurrence pays `pos` steps of d/2 rotations for any row: keep that affordable.
    if (impl_.strategy == core::Strategy::kRecurrence)
      return std::min<uint64_t>(impl_.max_position, kWorkLimit / std::max(1, d_model / 2));
    return impl_.max_position;
  }
  uint64_t steps_since_direct(uint64_t pos) const override { return impl_.steps_since_direct(pos); }

 private:
  const core::Implementation& impl_;
};

}  // namespace

std::unique_ptr<properties::UnderTest> registry_entry(const core::Implementation& impl) {
  return std::make_unique<RegistryEntry>(impl);
}

}  // namespace pev::adapters
