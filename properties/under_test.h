// "An implementation under test": what the property suite runs on. A user's C++ callable, a table
// loaded from a file, or a registry entry (adapters/table_entry.h) all look the same to
// the properties.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/spec.h"

namespace pev::properties {

// What an implementation under test says it computes: the recipes and layouts the suite may ask
// it for. The suite asks for everything in scope, so a kernel that claims a recipe and ignores it
// fails; one that never claimed it is not asked.
struct Scope {
  std::vector<RopeType> recipes = {RopeType::kDefault,     RopeType::kLinear,   RopeType::kDynamic,
                                   RopeType::kYarn,        RopeType::kLongRope, RopeType::kLlama3,
                                   RopeType::kProportional};
  std::vector<Layout> layouts = all_layouts();
  bool covers(const TableSpec& spec) const;
  static Scope plain();  // the default recipe only, every layout
};

class UnderTest {
 public:
  virtual ~UnderTest() = default;
  virtual std::string name() const = 0;
  virtual Dtype output() const = 0;  // storage type: ulps are measured in it
  virtual Claim claim() const = 0;   // the accuracy every element is held to
  // Rows spec.start .. spec.start + count - 1 in spec's layout, widened to double.
  virtual std::vector<double> rows(const TableSpec& spec, uint64_t count) const = 0;
  // Whether rows() can produce this table (a loaded table has one spec and a fixed range; an
  // implementation has a valid range and, for recurrences, a cost that grows with position).
  virtual bool can_produce(const TableSpec& spec, uint64_t count) const = 0;
  // The largest position the properties should ask about for this d_model.
  virtual uint64_t max_position(int d_model) const = 0;
  // Rotations since the last directly computed row (the claim's `steps`); 0 for direct ones.
  virtual uint64_t steps_since_direct(uint64_t) const { return 0; }
  // For a loaded table: its one spec. Properties then use it instead of generated specs.
  virtual std::optional<TableSpec> fixed_spec() const { return std::nullopt; }
  // The recipes and layouts the suite may generate for it (a loaded table: its own spec).
  virtual Scope scope() const { return Scope{}; }
};

// A user's kernel: fill(spec, count, out) writes count rows of table_width(spec) doubles (the
// stored values widened), any layout. `max_position` bounds what the suite will ask for.
using FillFunction = std::function<void(const TableSpec& spec, uint64_t count, double* out)>;
std::unique_ptr<UnderTest> callable(std::string name, Dtype output, Claim claim, FillFunction fill,
                                    uint64_t max_position = uint64_t{1} << 24,
                                    Scope scope = Scope{});

// A table read on demand: read(first, n, out) writes rows spec.start + first .. + n - 1 (widened
// to double, row-major); it must be safe to call from several threads at once.
using RowReader = std::function<void(uint64_t first, uint64_t n, double* out)>;
std::unique_ptr<UnderTest> streamed_table(std::string name, Dtype output, Claim claim,
                                          TableSpec spec, uint64_t rows, RowReader read);

// A table already computed: `values` holds rows spec.start .. spec.start + rows - 1.
std::unique_ptr<UnderTest> loaded_table(std::string name, Dtype output, Claim claim, TableSpec spec,
                                        uint64_t rows, std::vector<double> values);

}  // namespace pev::properties
