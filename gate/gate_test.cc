// The gate's records can regress: lowering any committed record makes check fail; records a table
// of zeros would meet are refused; a budget file written by hand from the README works.
#include "peverify/gate/gate.h"

#include <gtest/gtest.h>

#include <bit>
#include <filesystem>
#include <fstream>

#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"
#include "peverify/support/atomic_file.h"
#include "peverify/tables/npy_writer.h"

namespace pev::gate {
namespace {

std::string temp_dir() {
  const std::string dir = ::testing::TempDir() + "/gate_test_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

void quiet(const std::string&) {}

TEST(Gate, LoweringAnyCommittedRecordMakesCheckFail) {
  const BudgetFile file = read_budget_file("gate/budgets.json");
  std::vector<GateOutcome> outcomes = run_gate(file, quiet);
  for (const GateOutcome& o : outcomes)
    ASSERT_FALSE(o.regressed) << o.subject << " " << o.band << ": " << o.message;
  int lowered = 0;
  for (size_t s = 0; s < file.subjects.size(); ++s)
    for (const auto& [band, record] : file.subjects[s].records)
      for (double BandFigures::*figure :
           {&BandFigures::max_abs, &BandFigures::max_ulp, &BandFigures::max_budget_ratio}) {
        if (!(record.*figure > 0)) continue;  // not recorded, or 0: nothing lies below it
        BudgetFile lower = file;
        lower.subjects[s].records[band].*figure = next_below_2(record.*figure);
        std::vector<GateOutcome> again = outcomes;
        compare_with(lower, again);
        const std::string subject = file.subjects[s].impl;
        for (const GateOutcome& o : again)
          EXPECT_EQ(o.regressed, o.subject == subject && o.band == band)
              << subject << " " << band << " lowered to " << next_below_2(record.*figure) << ": "
              << o.message;
        ++lowered;
      }
  EXPECT_GT(lowered, 100);
}

TEST(Gate, RecordsATableOfZerosMeetsAreRefusedAndNeverWritten) {
  const std::string dir = temp_dir();
  const std::string budgets = write(
      dir, "budgets.json",
      R"({"subjects": [{"impl": "cpu/pow/f16>f16/glibc", "budgets": {"0-4095": {"max_abs": 2.0}}}]})");
  const BudgetFile file = read_budget_file(budgets);
  const std::vector<GateOutcome> outcomes = run_gate(file, quiet);
  ASSERT_FALSE(outcomes.empty());
  EXPECT_TRUE(outcomes[0].regressed);
  EXPECT_NE(outcomes[0].message.find("gates nothing"), std::string::npos) << outcomes[0].message;
  const BudgetFile next = updated(file, outcomes);
  for (const auto& [band, b] : next.subjects[0].records) {
    EXPECT_TRUE(std::isnan(b.max_abs)) << band << ": a float16 computation's error reaches 1";
    EXPECT_FALSE(std::isnan(b.max_budget_ratio)) << band;
  }
}

TEST(Gate, TheReadmesHandWrittenBudgetFileWorks) {
  // The README's example: a table and nothing else; --update fills in version, grid and records.
  const std::string dir = temp_dir();
  TableSpec spec;
  spec.d_model = 512;
  const auto engine = oracle::make_fast_engine(spec, Dtype::kFloat32);
  const oracle::ExactTable t = oracle::compute_table(*engine, spec, 4096);
  std::vector<uint64_t> bits(t.rounded.size());
  for (size_t i = 0; i < bits.size(); ++i)
    bits[i] = std::bit_cast<uint32_t>(static_cast<float>(t.rounded[i]));
  write_npy(dir + "/pe.npy", Dtype::kFloat32, 4096, 512, bits);
  const std::string budgets = write(
      dir, "budgets.json",
      R"({"subjects": [{"table": "pe.npy", "d_model": 512, "layout": "interleaved", "budgets": {}}]})");
  const BudgetFile file = read_budget_file(budgets);
  EXPECT_TRUE(file.completed);
  EXPECT_EQ(file.bands.size(), default_bands().size());
  std::vector<GateOutcome> outcomes = run_gate(file, quiet);
  ASSERT_FALSE(outcomes.empty());
  EXPECT_TRUE(outcomes[0].regressed) << "no record yet";
  write_file_atomically(
      budgets, [&](std::ostream& out) { out << to_json(updated(file, outcomes)).dump(2) << "\n"; });
  const BudgetFile recorded = read_budget_file(budgets);
  EXPECT_FALSE(recorded.completed);
  for (const GateOutcome& o : run_gate(recorded, quiet))
    EXPECT_FALSE(o.regressed) << o.band << ": " << o.message;
  EXPECT_EQ(recorded.subjects[0].records.at("0-4095").max_ulp, 0.5);
}

TEST(Gate, SchemaErrorsNameTheFieldInWords) {
  const std::string dir = temp_dir();
  const struct {
    const char* json;
    const char* says;
  } cases[] = {
      {R"({"version": "1", "subjects": []})", "\"version\" must be a number"},
      {R"({"version": 2, "subjects": []})", "\"version\" 2 is not one peverify reads"},
      {R"({"grid": [], "subjects": []})", "grid: must be an object"},
      {R"({"grid": {"bands": [[5, 1]]}, "subjects": []})", "band 5-1 is empty"},
      {R"({})", "\"subjects\" is missing"},
      {R"({"subjects": [{"table": "t.npy", "d_model": "512"}]})",
       "subject 1 (t.npy): \"d_model\" must be a number, not a string"},
      {R"({"subjects": [{"table": "t.npy", "layout": "diagonal"}]})", "\"layout\" \"diagonal\""},
      {R"({"subjects": [{"table": "t.npy", "d_modle": 512}]})", "unknown field \"d_modle\""},
      {R"({"subjects": [{"table": "t.npy", "rope_scaling": "yarn"}]})",
       "\"rope_scaling\" must be an object"},
      {R"({"subjects": [{"impl": "cpu/pow/f32>f32/glibc", "d_model": 64}]})",
       "\"d_model\" applies to table files"},
      {R"({"subjects": [{"impl": "nope"}]})", "no registry entry"},
      {R"({"subjects": [{"table": "t.npy", "budgets": {"0-4095": {"max_abs": "x"}}}]})",
       "\"budgets.0-4095.max_abs\" must be a number"},
      {R"({"subjects": [)", "not JSON"},
  };
  for (const auto& c : cases) {
    const std::string path = write(dir, "budgets.json", c.json);
    try {
      read_budget_file(path);
      ADD_FAILURE() << "accepted " << c.json;
    } catch (const FileError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(c.says), std::string::npos) << c.json << " -> " << m;
      EXPECT_EQ(m.find("json.exception"), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

TEST(Gate, TableSubjectsResolveModelConfigAndKeepRopeScaling) {
  const std::string dir = temp_dir();
  const std::string path = write(
      dir, "budgets.json",
      R"({"subjects": [{"table": "t.npy", "model_config": "cfg/config.json", "layout": "rope-cos-dup",
           "rope_scaling": {"rope_type": "linear", "factor": 2}}]})");
  const BudgetFile f = read_budget_file(path);
  ASSERT_EQ(f.subjects.size(), 1u);
  EXPECT_EQ(f.subjects[0].model_config_path, dir + "/cfg/config.json");
  EXPECT_EQ(f.subjects[0].table_path, dir + "/t.npy");
  ASSERT_TRUE(f.subjects[0].rope_scaling);
  const nlohmann::json back = to_json(f);
  EXPECT_EQ(back["subjects"][0]["model_config"], "cfg/config.json");
  EXPECT_EQ(back["subjects"][0]["rope_scaling"]["rope_type"], "linear");
  EXPECT_FALSE(back["subjects"][0].contains("d_model")) << "d_model comes from the config";
}

}  // namespace
}  // namespace pev::gate
