// The CUDA entries on a device: the property suite on every entry (held to its claim, with the
// expectations of crosscheck/expectations.tsv), the precise kernels equal to their host twin bit
// for bit, and every entry's device error within its modelled bound, on plain tables and real
// models' rotary caches. Without a CUDA device every test is skipped with the reason "no CUDA
// device", never passed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "peverify/adapters/table_entry.h"
#include "peverify/core/cuda/device_model.h"
#include "peverify/core/generate.h"
#include "peverify/core/recipe.h"
#include "peverify/core/registry.h"
#include "peverify/crosscheck/expectations_testutil.h"
#include "peverify/encoding/rope_models_testutil.h"
#include "peverify/oracle/table.h"
#include "peverify/properties/gtest/register_suite.h"

namespace pev::core::cuda {
namespace {

// As the CUDA entries decide it (a device of compute capability 8.0 or newer).
bool device_present() {
  const Implementation* e = find_implementation("cuda/precise/f64>f32/accurate");
  return e && e->available();
}

// The tests properties::register_suite registers for each entry (properties/suite.cc). Without
// a device they are registered under the same names, each skipped with the reason.
constexpr const char* kSuiteTests[] = {"Bounded",
                                       "Unique",
                                       "ShiftIdentities",
                                       "Growth",
                                       "OracleAgreementExhaustive",
                                       "OracleAgreementSampled"};

class Skipped : public testing::Test {
 public:
  void TestBody() override { GTEST_SKIP() << "no CUDA device"; }
};

std::vector<const Implementation*> cuda_entries() {
  std::vector<const Implementation*> out;
  for (const Implementation& e : registry())
    if (e.device == Device::kCuda) out.push_back(&e);
  return out;
}

TableSpec small_spec() {
  TableSpec s;
  s.d_model = 64;
  return s;
}

// Plain tables of d 64 and 512, and every real model's cache the entry claims.
std::vector<TableSpec> device_specs(const Implementation& e, uint64_t rows) {
  std::vector<TableSpec> specs = {small_spec(), small_spec()};
  specs[1].d_model = 512;
  for (const models::RopeModel& m : models::every_rope_model()) {
    const TableSpec spec = spec_of(m.model, Layout::kInterleaved, 0, rows);
    if (claims_frequencies(e, spec)) specs.push_back(spec);
  }
  return specs;
}

class OnDevice : public testing::TestWithParam<const Implementation*> {
 protected:
  void SetUp() override {
    if (!device_present()) GTEST_SKIP() << "no CUDA device";
  }
};

// No library function in the precise kernels: the device must give the twin's bits.
TEST_P(OnDevice, PreciseEqualsItsHostTwin) {
  const Implementation& e = *GetParam();
  if (e.strategy != Strategy::kPrecise) GTEST_SKIP() << "calls device math functions";
  for (const TableSpec& table : device_specs(e, uint64_t{1} << 24)) {
    for (const uint64_t start : {uint64_t{0}, uint64_t{1} << 20, (uint64_t{1} << 24) - 600}) {
      TableSpec spec = table;
      spec.start = start;
      const GeneratedTable got = generate(e, spec, 512);
      const ModelTable twin = model_table(e, spec, 512, Perturbation{true}, nullptr);
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got.bits(i), twin.table.bits(i))
            << e.name << " d " << spec.d_model << " " << describe(spec.rope) << " start " << start
            << " i " << i;
    }
  }
}

// The modelled bound is a bound: the device's largest error over the documented elements is
// within it.
TEST_P(OnDevice, WithinItsModelledBound) {
  const Implementation& e = *GetParam();
  const uint64_t rows = std::min<uint64_t>(1024, e.max_position + 1);
  for (const TableSpec& spec : device_specs(e, rows)) {
    const std::vector<double> exact = oracle::exact_values(spec, rows);
    const ModelledError model = modelled_error(e, spec, rows, exact);
    const ModelTable where = model_table(e, spec, rows, Perturbation{true}, nullptr);
    const GeneratedTable got = generate(e, spec, rows);
    double worst = 0;
    size_t documented = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (!where.out_of_range[i]) {
        worst = std::max(worst, std::fabs(got.value(i) - exact[i]));
        ++documented;
      }
    EXPECT_LE(worst, model.max_abs)
        << e.name << " d=" << spec.d_model << " " << describe(spec.rope);
    // Positions 0..3 keep every angle within [-pi, pi]: some elements are always documented.
    EXPECT_GT(documented, 0u) << e.name << " d=" << spec.d_model << " " << describe(spec.rope)
                              << ": no element within the documented range";
  }
}

INSTANTIATE_TEST_SUITE_P(Cuda, OnDevice, testing::ValuesIn(cuda_entries()),
                         [](const testing::TestParamInfo<const Implementation*>& info) {
                           return properties::test_name_of(info.param->name);
                         });

}  // namespace
}  // namespace pev::core::cuda

int main(int argc, char** argv) {
  using namespace pev;
  const auto rules = crosscheck::read_expectation_rules("crosscheck/expectations.tsv");
  const bool present = core::cuda::device_present();
  for (const core::Implementation* e : core::cuda::cuda_entries()) {
    // "device_cuda_pow_f32_f32_accurate.Bounded": the suite on device results.
    const std::string suite = "device_" + properties::test_name_of(e->name);
    if (present) {
      properties::register_suite(
          suite, [e] { return adapters::registry_entry(*e); },
          crosscheck::expectations_for(e->name, rules));
      continue;
    }
    for (const char* test : core::cuda::kSuiteTests)
      testing::RegisterTest(suite.c_str(), test, nullptr, nullptr, __FILE__, __LINE__,
                            []() -> testing::Test* { return new core::cuda::Skipped; });
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
