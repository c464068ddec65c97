// Mutation self-test: deliberately broken implementations must be caught, each by the properties
// named for it, and the unbroken one they are made from must pass them all.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "peverify/adapters/table_entry.h"
#include "peverify/core/convert.h"
#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/encoding/rope_models_testutil.h"
#include "peverify/properties/checks.h"
#include "peverify/properties/under_test.h"

namespace pev::properties {
namespace {

const core::Implementation& good() {
  return *core::find_implementation("cpu/logspace/f64>f32/glibc");
}

// The good table, widened to double.
std::vector<double> good_rows(const TableSpec& spec, uint64_t count) {
  return adapters::registry_entry(good())->rows(spec, count);
}

double exact_pe(double pos, const TableSpec& spec, bool is_sin, double exponent) {
  const double a = pos * std::pow(spec.base, exponent);
  return static_cast<float>(is_sin ? std::sin(a) : std::cos(a));
}

using Mutation = std::function<void(const TableSpec&, uint64_t, double*)>;

struct Mutant {
  std::string name;
  Mutation fill;
  std::vector<std::string> caught_by;  // verdict names that must fail
  Dtype output = Dtype::kFloat32;
};

std::vector<Mutant> mutants() {
  std::vector<Mutant> m;
  m.push_back({"swapped sin and cos",
               [](const TableSpec& spec, uint64_t n, double* out) {
                 const std::vector<double> t = good_rows(spec, n);
                 const int w = table_width(spec);
                 for (uint64_t r = 0; r < n; ++r)
                   for (int c = 0; c < w; ++c) {
                     const Column col = column_at(spec, c);
                     // The same pair's other function sits at c ^ 1 in the interleaved layout.
                     out[r * w + c] = t[r * w + (c ^ 1)];
                     (void)col;
                   }
               },
               {"oracle", "shift"}});
  m.push_back({"off-by-one position",
               [](const TableSpec& spec, uint64_t n, double* out) {
                 TableSpec s = spec;
                 s.start += 1;
                 const std::vector<double> t = good_rows(s, n);
                 std::copy(t.begin(), t.end(), out);
               },
               {"oracle"}});
  m.push_back({"wrong base (1% off)",
               [](const TableSpec& spec, uint64_t n, double* out) {
                 TableSpec s = spec;
                 s.base *= 1.01;
                 const std::vector<double> t = good_rows(s, n);
                 std::copy(t.begin(), t.end(), out);
               },
               {"oracle"}});
  m.push_back({"exponent from the dimension, not the pair",
               [](const TableSpec& spec, uint64_t n, double* out) {
                 const int w = table_width(spec);
                 for (uint64_t r = 0; r < n; ++r)
                   for (int c = 0; c < w; ++c) {
                     const Column col = column_at(spec, c);
                     out[r * w + c] = exact_pe(static_cast<double>(spec.start + r), spec,
                                               col.is_sin, -static_cast<double>(c) / spec.d_model);
                   }
               },
               {"oracle", "bounded", "shift"}});
  m.push_back({"positions rounded to bfloat16",
               [](const TableSpec& spec, uint64_t n, double* out) {
                 const int w = table_width(spec);
                 for (uint64_t r = 0; r < n; ++r) {
                   const double pos =
                       core::f32_from_bf16(core::bf16_from_f32(static_cast<float>(spec.start + r)));
                   for (int c = 0; c < w; ++c) {
                     const Column col = column_at(spec, c);
                     const FrequencyExponent e = frequency_exponent(spec, col.pair);
                     out[r * w + c] = exact_pe(pos, spec, col.is_sin,
                                               static_cast<double>(e.numerator) / e.denominator);
                   }
                 }
               },
               {"unique", "oracle"}});
  m.push_back({"drifting recurrence",
               [](const TableSpec& spec, uint64_t n, double* out) {
                 const std::vector<double> t =
                     adapters::registry_entry(
                         *core::find_implementation("cpu/recurrence/f32>f32/glibc"))
                         ->rows(spec, n);
                 std::copy(t.begin(), t.end(), out);
               },
               {"growth", "oracle"}});
  m.push_back({"one corrupted element",
               [](const TableSpec& spec, uint64_t n, double* out) {
                 const std::vector<double> t = good_rows(spec, n);
                 std::copy(t.begin(), t.end(), out);
                 const int w = table_width(spec);
                 if (spec.start <= 300 && spec.start + n > 300)
                   out[(300 - spec.start) * w + 5] += 1e-3;
               },
               {"oracle"}});
  m.push_back({"truncating bfloat16 conversion",
               [](const TableSpec& spec, uint64_t n, double* out) {
                 const std::vector<double> t = good_rows(spec, n);
                 for (size_t i = 0; i < t.size(); ++i)
                   out[i] =
                       core::f32_from_bf16(core::bf16_from_f32_truncate(static_cast<float>(t[i])));
               },
               {"oracle"},
               Dtype::kBFloat16});
  return m;
}

// Runs every property on the same grid the suite uses for generated implementations.
std::vector<PropertyVerdict> all_verdicts(const UnderTest& ut) {
  TableSpec small;
  small.d_model = 64;
  TableSpec big;
  big.d_model = 512;
  std::vector<ShiftCase> cases;
  for (uint64_t pos : {0ull, 7ull, 1000ull, 65536ull, 1234567ull})
    for (int pair : {0, 1, 17, 255}) cases.push_back({pos, 3, pair});
  return {
      check_bounded(ut, small, 2048), check_unique(ut, small, 4096), check_shift(ut, big, cases),
      check_growth(ut, big, growth_positions(std::min<uint64_t>(ut.max_position(512), 1 << 20))),
      check_oracle(ut, small, 1024)};
}

TEST(Mutation, TheUnbrokenImplementationPassesEveryProperty) {
  const auto ut = adapters::registry_entry(good());
  for (const PropertyVerdict& v : all_verdicts(*ut))
    EXPECT_TRUE(v.holds) << v.property << ": " << v.summary;
}

TEST(Mutation, EveryBrokenImplementationIsCaught) {
  for (const Mutant& m : mutants()) {
    const auto ut = callable(m.name, m.output, Claim::model(Dtype::kFloat32), m.fill, 1 << 20);
    const std::vector<PropertyVerdict> verdicts = all_verdicts(*ut);
    for (const std::string& property : m.caught_by) {
      const auto it = std::find_if(verdicts.begin(), verdicts.end(), [&](const PropertyVerdict& v) {
        return v.property == property;
      });
      ASSERT_NE(it, verdicts.end());
      EXPECT_FALSE(it->holds) << "'" << m.name << "' was not caught by " << property << ": "
                              << it->summary;
    }
  }
}

// The recipe bugs users hit (/work/shared/ROPE.md), each on the model it was found with: the
// unbroken entry computes the recipe and passes; each bug is caught by the oracle.
TEST(Mutation, RecipeBugsAreCaught) {
  const std::vector<models::RopeModel> real = models::real_rope_models();
  const auto rows_of = [](const TableSpec& s, uint64_t n) { return good_rows(s, n); };
  struct RecipeMutant {
    std::string name;
    TableSpec spec;
    Mutation fill;
  };
  const TableSpec llama = spec_of(real[0].model, Layout::kRopeCosDup, 0, 1024);
  const TableSpec qwen = spec_of(real[1].model, Layout::kRopeCosSin, 0, 1024);
  const TableSpec deepseek = spec_of(real[2].model, Layout::kPolar, 0, 1024);
  const std::vector<RecipeMutant> mutants = {
      // transformers#32330: the llama3 recipe returned the unscaled frequencies.
      {"llama3 frequencies unscaled", llama,
       [&](const TableSpec& s, uint64_t n, double* out) {
         TableSpec plain = s;
         plain.rope = RopeScaling{};
         const std::vector<double> t = rows_of(plain, n);
         std::copy(t.begin(), t.end(), out);
       }},
      // vllm PR#46280: the attention factor ignored.
      {"yarn attention factor ignored", qwen,
       [&](const TableSpec& s, uint64_t n, double* out) {
         const std::vector<double> t = rows_of(s, n);
         for (size_t i = 0; i < t.size(); ++i)
           out[i] = static_cast<float>(t[i] / attention_factor(s));
       }},
      // Megatron-LM#1418: yarn's correction range from the extended length s L0.
      {"yarn range from the extended length", deepseek,
       [&](const TableSpec& s, uint64_t n, double* out) {
         TableSpec wrong = s;
         wrong.rope.original_max_position = static_cast<uint64_t>(
             s.rope.factor * static_cast<double>(s.rope.original_max_position));
         const std::vector<double> t = rows_of(wrong, n);
         std::copy(t.begin(), t.end(), out);
       }},
  };
  for (const RecipeMutant& m : mutants) {
    const auto good_ut = adapters::registry_entry(good());
    EXPECT_TRUE(check_oracle(*good_ut, m.spec, 1024).holds) << m.name << ": unbroken";
    const auto ut = callable(m.name, Dtype::kFloat32, good().claim, m.fill, 1 << 20);
    const PropertyVerdict v = check_oracle(*ut, m.spec, 1024);
    EXPECT_FALSE(v.holds) << "'" << m.name << "' was not caught: " << v.summary;
  }
}

}  // namespace
}  // namespace pev::properties

namespace pev::properties {
namespace {

// The default budget's C (docs/mathematics.md §3.2): the seeds' float32 tables pass it, and an
// error of 1e-4 on a low-frequency element (|exact| ~ 1, a ~ 1e-2) does not: a constant floor such
// as C u would hide it, the (|exact| + a) scaling does not.
TEST(DefaultBudget, PassesTheSeedsFloat32TablesAndCatchesA1e4ErrorAtLowFrequency) {
  TableSpec spec;
  spec.d_model = 512;
  const Claim model = Claim::model(Dtype::kFloat32);
  for (const char* seed_way : {"cpu/pow/f32>f32/glibc", "cpu/logspace/f32>f32/glibc",
                               "cpu/logspace/f32>f32/sleef-u10", "cpu/pow/f64>f32/glibc"}) {
    const core::Implementation& impl = *core::find_implementation(seed_way);
    const auto ut = callable(
        seed_way, Dtype::kFloat32, model, [&](const TableSpec& s, uint64_t n, double* out) {
          const std::vector<double> t = adapters::registry_entry(impl)->rows(s, n);
          std::copy(t.begin(), t.end(), out);
        });
    EXPECT_TRUE(check_oracle(*ut, spec, 512).holds) << seed_way;
  }
  const auto off = callable("low-frequency 1e-4 off", Dtype::kFloat32, model,
                            [](const TableSpec& s, uint64_t n, double* out) {
                              const std::vector<double> t = good_rows(s, n);
                              std::copy(t.begin(), t.end(), out);
                              // The cosine of the lowest frequency at position 100.
                              if (s.start <= 100 && s.start + n > 100)
                                out[(100 - s.start) * table_width(s) + s.d_model - 1] += 1e-4;
                            });
  const PropertyVerdict v = check_oracle(*off, spec, 512);
  EXPECT_FALSE(v.holds) << v.summary;
}

}  // namespace
}  // namespace pev::properties
