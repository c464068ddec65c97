#include "peverify/properties/under_test.h"

#include <algorithm>
#include <stdexcept>

namespace pev::properties {

bool Scope::covers(const TableSpec& spec) const {
  return std::find(recipes.begin(), recipes.end(), spec.rope.type) != recipes.end() &&
         std::find(layouts.begin(), layouts.end(), spec.layout) != layouts.end();
}

Scope Scope::plain() {
  Scope s;
  s.recipes = {RopeType::kDefault};
  return s;
}

namespace {

class Callable final : public UnderTest {
 public:
  Callable(std::string name, Dtype output, Claim claim, FillFunction fill, uint64_t max_position,
           Scope scope)
      : name_(std::move(name)),
        output_(output),
        claim_(claim),
        fill_(std::move(fill)),
        max_position_(max_position),
        scope_(std::move(scope)) {}
  std::string name() const override { return name_; }
  Dtype output() const override { return output_; }
  Claim claim() const override { return claim_; }
  std::vector<double> rows(const TableSpec& spec, uint64_t count) const override {
    std::vector<double> v(count * static_cast<uint64_t>(table_width(spec)));
    fill_(spec, count, v.data());
    return v;
  }
  bool can_produce(const TableSpec& spec, uint64_t count) const override {
    return count >= 1 && spec.start + count - 1 <= max_position_ && scope_.covers(spec);
  }
  uint64_t max_position(int) const override { return max_position_; }
  Scope scope() const override { return scope_; }

 private:
  std::string name_;
  Dtype output_;
  Claim claim_;
  FillFunction fill_;
  uint64_t max_position_;
  Scope scope_;
};

// A table of one spec and a fixed range of rows, read through `read`.
class FixedTable final : public UnderTest {
 public:
  FixedTable(std::string name, Dtype output, Claim claim, TableSpec spec, uint64_t rows,
             RowReader read)
      : name_(std::move(name)),
        output_(output),
        claim_(claim),
        spec_(spec),
        rows_(rows),
        read_(std::move(read)) {}
  std::string name() const override { return name_; }
  Dtype output() const override { return output_; }
  Claim claim() const override { return claim_; }
  std::vector<double> rows(const TableSpec& spec, uint64_t count) const override {
    if (!can_produce(spec, count)) throw std::out_of_range("rows outside the table");
    std::vector<double> v(count * static_cast<uint64_t>(table_width(spec_)));
    read_(spec.start - spec_.start, count, v.data());
    return v;
  }
  bool can_produce(const TableSpec& spec, uint64_t count) const override {
    return spec.d_model == spec_.d_model && spec.base == spec_.base &&
           spec.schedule == spec_.schedule && spec.layout == spec_.layout &&
           spec.rope == spec_.rope && spec.start >= spec_.start && count >= 1 &&
           spec.start - spec_.start <= rows_ && count <= rows_ - (spec.start - spec_.start);
  }
  uint64_t max_position(int) const override { return spec_.start + rows_ - 1; }
  std::optional<TableSpec> fixed_spec() const override { return spec_; }
  Scope scope() const override { return Scope{{spec_.rope.type}, {spec_.layout}}; }

 private:
  std::string name_;
  Dtype output_;
  Claim claim_;
  TableSpec spec_;
  uint64_t rows_;
  RowReader read_;
};

}  // namespace

std::unique_ptr<UnderTest> callable(std::string name, Dtype output, Claim claim, FillFunction fill,
                                    uint64_t max_position, Scope scope) {
  return std::make_unique<Callable>(std::move(name), output, claim, std::move(fill), max_position,
                                    std::move(scope));
}

std::unique_ptr<UnderTest> streamed_table(std::string name, Dtype output, Claim claim,
                                          TableSpec spec, uint64_t rows, RowReader read) {
  return std::make_unique<FixedTable>(std::move(name), output, claim, spec, rows, std::move(read));
}

std::unique_ptr<UnderTest> loaded_table(std::string name, Dtype output, Claim claim, TableSpec spec,
                                        uint64_t rows, std::vector<double> values) {
  const uint64_t width = static_cast<uint64_t>(table_width(spec));
  auto shared = std::make_shared<const std::vector<double>>(std::move(values));
  return streamed_table(std::move(name), output, claim, spec, rows,
                        [shared, width](uint64_t first, uint64_t n, double* out) {
                          std::copy_n(shared->begin() + static_cast<std::ptrdiff_t>(first * width),
                                      n * width, out);
                        });
}

}  // namespace pev::properties
