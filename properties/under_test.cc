#include "properties/under_test.h"

#include <algorithm>
#include <stdexcept>

#include "core/generate.h"
#include "core/registry.h"

namespace pev::properties {
namespace {

// What one row request may cost the suite in rotations of one pair (a naive recurrence pays
// pos * d/2 of them for any row; emulated float16 arithmetic makes each cost ~100 ns).
constexpr uint64_t kWorkLimit = uint64_t{1} << 22;

class RegistryEntry final : public UnderTest {
 public:
  explicit RegistryEntry(const core::Implementation& impl) : impl_(impl) {}
  std::string name() const override { return impl_.name; }
  Dtype output() const override { return impl_.output; }
  Budget budget() const override {
    switch (impl_.claim.kind) {
      case core::Claim::Kind::kFaithful:
        return Budget::faithful();
      case core::Claim::Kind::kStrict:
        return Budget::strict();
      case core::Claim::Kind::kModel:
        break;
    }
    return Budget::model(impl_.compute, impl_.claim.c, impl_.claim.output_ulps);
  }
  std::vector<double> rows(const TableSpec& spec, uint64_t count) const override {
    const core::GeneratedTable t = core::generate(impl_, spec, count);
    std::vector<double> v(t.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.value(i);
    return v;
  }
  bool can_produce(const TableSpec& spec, uint64_t count) const override {
    if (impl_.available && !impl_.available()) return false;
    if (spec.base > impl_.max_base) return false;
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

class Callable final : public UnderTest {
 public:
  Callable(std::string name, Dtype output, Budget budget, FillFunction fill, uint64_t max_position)
      : name_(std::move(name)),
        output_(output),
        budget_(budget),
        fill_(std::move(fill)),
        max_position_(max_position) {}
  std::string name() const override { return name_; }
  Dtype output() const override { return output_; }
  Budget budget() const override { return budget_; }
  std::vector<double> rows(const TableSpec& spec, uint64_t count) const override {
    std::vector<double> v(count * static_cast<uint64_t>(table_width(spec)));
    fill_(spec, count, v.data());
    return v;
  }
  bool can_produce(const TableSpec& spec, uint64_t count) const override {
    return count >= 1 && spec.start + count - 1 <= max_position_;
  }
  uint64_t max_position(int) const override { return max_position_; }

 private:
  std::string name_;
  Dtype output_;
  Budget budget_;
  FillFunction fill_;
  uint64_t max_position_;
};

class LoadedTable final : public UnderTest {
 public:
  LoadedTable(std::string name, Dtype output, Budget budget, TableSpec spec, uint64_t rows,
              std::vector<double> values)
      : name_(std::move(name)),
        output_(output),
        budget_(budget),
        spec_(spec),
        rows_(rows),
        values_(std::move(values)) {}
  std::string name() const override { return name_; }
  Dtype output() const override { return output_; }
  Budget budget() const override { return budget_; }
  std::vector<double> rows(const TableSpec& spec, uint64_t count) const override {
    if (!can_produce(spec, count)) throw std::out_of_range("rows outside the loaded table");
    const uint64_t width = static_cast<uint64_t>(table_width(spec_));
    const auto first =
        values_.begin() + static_cast<std::ptrdiff_t>((spec.start - spec_.start) * width);
    return std::vector<double>(first, first + static_cast<std::ptrdiff_t>(count * width));
  }
  bool can_produce(const TableSpec& spec, uint64_t count) const override {
    return spec.d_model == spec_.d_model && spec.base == spec_.base &&
           spec.schedule == spec_.schedule && spec.layout == spec_.layout &&
           spec.start >= spec_.start && count >= 1 && spec.start + count <= spec_.start + rows_;
  }
  uint64_t max_position(int) const override { return spec_.start + rows_ - 1; }
  std::optional<TableSpec> fixed_spec() const override { return spec_; }

 private:
  std::string name_;
  Dtype output_;
  Budget budget_;
  TableSpec spec_;
  uint64_t rows_;
  std::vector<double> values_;
};

}  // namespace

std::unique_ptr<UnderTest> registry_entry(const core::Implementation& impl) {
  return std::make_unique<RegistryEntry>(impl);
}

std::unique_ptr<UnderTest> callable(std::string name, Dtype output, Budget budget,
                                    FillFunction fill, uint64_t max_position) {
  return std::make_unique<Callable>(std::move(name), output, budget, std::move(fill), max_position);
}

std::unique_ptr<UnderTest> loaded_table(std::string name, Dtype output, Budget budget,
                                        TableSpec spec, uint64_t rows, std::vector<double> values) {
  return std::make_unique<LoadedTable>(std::move(name), output, budget, spec, rows,
                                       std::move(values));
}

}  // namespace pev::properties
