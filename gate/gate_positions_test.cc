// The gate on a table subject at position ids: a packed and gathered Llama 3.1 cos cache is
// recorded with --update and passes; one corrupted element of a gathered row fails its band and
// is named with its file row; the budget file keeps "positions" through --update.
#include <gtest/gtest.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <random>

#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/encoding/rope_models_testutil.h"
#include "peverify/gate/gate.h"
#include "peverify/tables/npy_writer.h"

namespace pev::gate {
namespace {

void quiet(const std::string&) {}

TEST(GatePositions, APackedAndGatheredCacheIsJudgedRowByRowAndACorruptRowIsNamed) {
  const std::string dir = ::testing::TempDir() + "/gate_positions";
  std::filesystem::create_directories(dir);
  RowPositions ids;
  ids.streams.resize(1);
  for (uint64_t p = 0; p < 3000; ++p) ids.streams[0].push_back(p);  // a packed sequence ...
  for (uint64_t p = 0; p < 1000; ++p) ids.streams[0].push_back(p);  // ... and another
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) ids.streams[0].push_back(rng() % 200000);  // a gathered batch
  const uint64_t rows = ids.rows();
  {
    std::ofstream f(dir + "/ids.npy", std::ios::binary);
    const std::string header =
        "{'descr': '<i8', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ",), }";
    std::string padded = header + std::string(64 - (10 + header.size() + 1) % 64, ' ') + "\n";
    const uint16_t len = static_cast<uint16_t>(padded.size());
    f.write("\x93NUMPY\x01\x00", 8);
    f.write(reinterpret_cast<const char*>(&len), 2);
    f << padded;
    f.write(reinterpret_cast<const char*>(ids.streams[0].data()),
            static_cast<std::streamsize>(8 * rows));
  }
  const ModelRope llama = models::real_rope_models().at(0).model;
  TableSpec spec = spec_of(llama, Layout::kRopeCosDup, 0, rows);
  const core::GeneratedTable t =
      core::generate_at(*core::find_implementation("cpu/pow/f32>f32/sleef-u10"), spec, ids);
  std::vector<uint64_t> bits(t.size());
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = t.bits(i);
  const int width = table_width(spec);
  write_npy(dir + "/cos.npy", Dtype::kFloat32, rows, static_cast<uint64_t>(width), bits);

  const std::string budgets = dir + "/budgets.json";
  std::ofstream(budgets) << R"({"subjects": [{"table": "cos.npy", "layout": "rope-cos-dup",
      "base": 500000, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1,
      "high_freq_factor": 4, "original_max_position_embeddings": 8192},
      "positions": "ids.npy"}]})";
  BudgetFile file = read_budget_file(budgets);
  ASSERT_EQ(file.subjects.at(0).positions, "ids.npy");
  file.subjects[0].spec = spec;  // what check's --rope-scaling handling gives it
  const BudgetFile recorded = updated(file, run_gate(file, quiet));
  EXPECT_EQ(to_json(recorded)["subjects"][0]["positions"], "ids.npy");
  int judged = 0;
  for (const GateOutcome& o : run_gate(recorded, quiet)) {
    if (o.skipped) continue;
    ++judged;
    EXPECT_FALSE(o.regressed) << o.band << ": " << o.message;
    EXPECT_NE(o.coverage.find("every one of"), std::string::npos) << o.coverage;
  }
  EXPECT_GE(judged, 2);  // the gathered rows reach past the first band

  const uint64_t row = 4321, column = 5;  // a gathered row
  const float bad = std::bit_cast<float>(static_cast<uint32_t>(bits[row * width + column])) + 0.01f;
  bits[row * width + column] = std::bit_cast<uint32_t>(bad);
  write_npy(dir + "/cos.npy", Dtype::kFloat32, rows, static_cast<uint64_t>(width), bits);
  bool named = false;
  for (const GateOutcome& o : run_gate(recorded, quiet))
    if (o.regressed && o.element)
      named = named || (o.element->row == row && o.element->column == static_cast<int>(column) &&
                        o.element->pos == ids.streams[0][row] && o.element->got == bad);
  EXPECT_TRUE(named) << "row " << row << " at position " << ids.streams[0][row];
}

}  // namespace
}  // namespace pev::gate
