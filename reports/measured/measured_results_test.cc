// The measured-results files: what a valid one holds, how the report shows them in place of the
// empty figures of entries that cannot run here, and that no committed measurement is above its
// host model (a measurement above its model is a bug in the model).
#include "peverify/reports/measured/measured_results.h"

#include <gtest/gtest.h>

#include <fstream>

#include "peverify/core/cuda/modelled_bounds.h"
#include "peverify/support/atomic_file.h"

namespace pev::reports::measured {
namespace {

using nlohmann::json;

json fixture() {
  std::ifstream in(std::string(PEV_MEASURED_FIXTURE) + "/fixture-gpu.json");
  return json::parse(in);
}

// A report as `peverify report` makes it where no GPU is present: one CPU entry that ran, and
// two CUDA entries that could not, each with its modelled label.
json report_without_gpu() {
  json bands = json::array({{{"first", 0}, {"last", 8191}, {"elements", 10}, {"max_abs", 1e-7}}});
  json cpu = {{"name", "cpu/pow/f32>f32/glibc"}, {"available", true}, {"bands", bands}};
  json measured = {{"name", "cuda/pow/f32>f32/accurate"},
                   {"available", false},
                   {"unavailable_reason", "no CUDA device"},
                   {"modelled", {{"label", "modelled, not measured"}, {"text", "..."}}},
                   {"bands", json::array()},
                   {"values_per_s", nullptr},
                   {"roofline_ratio", nullptr}};
  json other = measured;
  other["name"] = "cuda/pow/f32>f16/accurate";
  json study = fixture()["study"];
  study["filter"] = "";  // the whole study, as `peverify report` runs it
  study["bench"] = true;
  return {{"study", study}, {"implementations", {cpu, measured, other}}};
}

// The fixture validates, and what attach reads of it reaches the report as written there: the
// device, date and commit, the entry's figures and speed, the roofline, the rotation.
TEST(MeasuredResults, TheFixtureIsValidAndReadsBackAsWritten) {
  const json doc = fixture();
  ASSERT_NO_THROW(validate(doc, "fixture"));
  json report = report_without_gpu();
  attach(report, {doc});
  ASSERT_EQ(report["cuda_measured"].size(), 1u);
  const json& gpu = report["cuda_measured"][0];
  EXPECT_EQ(gpu["device"]["name"], "Fixture GPU");
  EXPECT_EQ(gpu["device"]["compute_capability"], "9.0");
  EXPECT_EQ(gpu["device"]["driver"], "13.0");
  EXPECT_EQ(gpu["device"]["memory_bytes"], 85899345920u);
  EXPECT_EQ(gpu["device"]["multiprocessors"], 132);
  EXPECT_EQ(gpu["date"], "2026-11-28T03:00:00Z");
  EXPECT_EQ(gpu["commit"], "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(gpu["command"], "peverify measure-cuda --out fixture-gpu.json");
  EXPECT_EQ(gpu["table_shape"], json::parse(R"({"rows": 131072, "d_model": 4096, "base": 10000})"));
  EXPECT_EQ(gpu["roofline"]["bytes"], 2147483648u);
  EXPECT_EQ(gpu["roofline"]["repetitions"], 3);
  EXPECT_EQ(gpu["roofline"]["memset_bytes_per_s"], 3.1e12);
  EXPECT_EQ(gpu["roofline"]["store_kernel_bytes_per_s"], 3.2e12);
  EXPECT_EQ(gpu["roofline"]["bytes_per_s"], 3.2e12);
  ASSERT_EQ(gpu["tables"].size(), 1u);
  const json& speed = gpu["tables"][0]["speed"];
  EXPECT_EQ(gpu["tables"][0]["name"], "cuda/pow/f32>f32/accurate");
  EXPECT_EQ(speed["seconds"], json::parse(R"({"median": 0.0005, "min": 0.00049, "max": 0.00052})"));
  EXPECT_EQ(speed["bytes_per_s"]["median"], 4.29e12);
  EXPECT_EQ(speed["bytes"], 2147483648u);
  ASSERT_EQ(gpu["rotations"].size(), 1u);
  EXPECT_EQ(gpu["rotations"][0]["name"], "cuda/rotate/cache-f32/f32");
  EXPECT_EQ(gpu["rotations"][0]["head_dim"], 128);
  EXPECT_EQ(gpu["rotations"][0]["values_per_s"]["median"], 3.3e11);
  EXPECT_EQ(gpu["rotations"][0]["roofline_ratio"], 0.82);

  // The entry the GPU measured, in place of its empty figures.
  const json& e = report["implementations"][1];
  ASSERT_EQ(e["name"], "cuda/pow/f32>f32/accurate");
  EXPECT_EQ(e["accuracy"], json::parse(R"({"max_abs": 0.0011, "mean_abs": 1e-5, "max_ulp": 3.5e7,
                                            "max_ulp_floored": 4.5, "elements": 1000})"));
  ASSERT_EQ(e["bands"].size(), 1u);
  EXPECT_EQ(e["bands"][0]["first"], 0);
  EXPECT_EQ(e["bands"][0]["last"], 8191);
  EXPECT_EQ(e["bands"][0]["max_abs"], 0.0011);
  ASSERT_EQ(e["properties"].size(), 2u);
  EXPECT_EQ(e["properties"][1]["property"], "claim");
  EXPECT_TRUE(e["properties"][1]["holds"].get<bool>());
  EXPECT_EQ(e["fitted_c"], 2.1);
  EXPECT_EQ(e["horizons"]["1e-4"], 4096);
  EXPECT_EQ(e["error_curve"], json::parse("[[1024, 1e-4]]"));
  EXPECT_EQ(e["values_per_s"], 1.07e12);
  EXPECT_EQ(e["values_per_s_min"], 1.03e12);
  EXPECT_EQ(e["values_per_s_max"], 1.09e12);
  EXPECT_EQ(e["roofline_ratio"], 0.67);
  const json& m = e["measured"];
  EXPECT_EQ(m["device"], "Fixture GPU");
  EXPECT_EQ(m["driver"], "13.0");
  EXPECT_EQ(m["date"], "2026-11-28T03:00:00Z");
  EXPECT_EQ(m["commit"], "0123456789abcdef0123456789abcdef01234567");
  ASSERT_EQ(m["model_checks"].size(), 1u);
  const json& check = m["model_checks"][0];
  EXPECT_EQ(check["grid"], "near");
  EXPECT_EQ(check["rows"], 8192);
  EXPECT_EQ(check["elements"], 4194304);
  EXPECT_EQ(check["measured_max_abs"], 0.0009);
  EXPECT_EQ(check["model_max_abs"], 0.003586);
}

TEST(MeasuredResults, RefusesWhatIsNotAMeasurementWithOneLine) {
  const auto refused = [](json doc, const std::string& why) {
    try {
      validate(doc, "f.json");
      ADD_FAILURE() << "accepted: " << why;
    } catch (const FileError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_NE(what.find("f.json"), std::string::npos) << what;
    }
  };
  json doc = fixture();
  doc["format"] = "peverify-measured-cuda/0";
  refused(doc, "another format");
  doc = fixture();
  doc.erase("commit");
  refused(doc, "no commit");
  doc = fixture();
  doc["device"].erase("driver");
  refused(doc, "no driver");
  doc = fixture();
  doc["entries"][0]["model_checks"][0]["grid"] = "middle";
  refused(doc, "an unknown grid");
  doc = fixture();
  doc["entries"][0]["report"].erase("bands");
  refused(doc, "an entry's report without bands");
  doc = fixture();
  doc["rotations"][0]["bytes_per_s"].erase("median");
  refused(doc, "a rotation's speed without its median");
  doc = fixture();
  doc["roofline"].erase("memset_bytes_per_s");
  refused(doc, "a roofline without its memset figure");
  doc = fixture();
  doc.erase("study");
  refused(doc, "no study");
  refused(json::array(), "not an object");
}

TEST(MeasuredResults, AnEntryThatCannotRunHereShowsWhatTheGpuMeasured) {
  json report = report_without_gpu();
  attach(report, {fixture()});
  const json& e = report["implementations"][1];
  EXPECT_FALSE(e.contains("modelled"));
  EXPECT_EQ(e["measured"]["device"], "Fixture GPU");
  EXPECT_EQ(e["measured"]["date"], "2026-11-28T03:00:00Z");
  EXPECT_EQ(e["measured"]["commit"], "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(e["accuracy"]["max_abs"], 0.0011);
  EXPECT_TRUE(e["measured"]["same_study"].get<bool>());
  EXPECT_EQ(e["bands"].size(), 1u);
  EXPECT_EQ(e["values_per_s"], 1.07e12);
  EXPECT_EQ(e["roofline_ratio"], 0.67);
  // Beside the model bound recorded now, and within it.
  const json& check = e["measured"]["model_checks"][0];
  EXPECT_EQ(check["model_max_abs_now"],
            core::cuda::recorded_model("cuda/pow/f32>f32/accurate")->near_abs);
  EXPECT_FALSE(check["above_model"].get<bool>());
  // Nothing measured: still modelled.
  EXPECT_TRUE(report["implementations"][2].contains("modelled"));
  EXPECT_FALSE(report["implementations"][2].contains("measured"));
  // The device's section: roofline, tables and rotations.
  ASSERT_EQ(report["cuda_measured"].size(), 1u);
  EXPECT_EQ(report["cuda_measured"][0]["rotations"].size(), 1u);
  EXPECT_EQ(report["cuda_measured"][0]["tables"][0]["name"], "cuda/pow/f32>f32/accurate");
}

TEST(MeasuredResults, FiguresOfAnotherStudyAreNotShownAsThisOnes) {
  json report = report_without_gpu();
  report["study"]["max_position"] = 4096;  // `peverify report --config` with other grids
  attach(report, {fixture()});
  const json& e = report["implementations"][1];
  EXPECT_FALSE(e["measured"]["same_study"].get<bool>());
  EXPECT_TRUE(e.contains("modelled"));  // its own figures are still the empty ones
  EXPECT_TRUE(e["values_per_s"].is_null());
  EXPECT_FALSE(e["measured"]["model_checks"].empty());  // these do not depend on the study
  EXPECT_FALSE(report["cuda_measured"].empty());
}

TEST(MeasuredResults, ANonFiniteDeviceErrorIsAboveEveryModel) {
  json doc = fixture();
  doc["entries"][0]["model_checks"][0]["measured_max_abs"] = nullptr;  // how JSON keeps a NaN
  EXPECT_NO_THROW(validate(doc, "f.json"));
  ASSERT_EQ(above_model(doc).size(), 1u);
  EXPECT_NE(above_model(doc)[0].find("not a finite number"), std::string::npos);
}

TEST(MeasuredResults, TheNewestMeasurementWins) {
  json older = fixture(), newer = fixture();
  older["device"]["name"] = "Older GPU";
  older["date"] = "2026-11-01T00:00:00Z";
  json report = report_without_gpu();
  attach(report, {newer, older});
  EXPECT_EQ(report["implementations"][1]["measured"]["device"], "Fixture GPU");
  report = report_without_gpu();
  attach(report, {older, newer});
  EXPECT_EQ(report["implementations"][1]["measured"]["device"], "Fixture GPU");
}

TEST(MeasuredResults, AMeasurementAboveItsModelIsFlagged) {
  json doc = fixture();
  EXPECT_TRUE(above_model(doc).empty());
  const double bound = core::cuda::recorded_model("cuda/pow/f32>f32/accurate")->near_abs;
  doc["entries"][0]["model_checks"][0]["measured_max_abs"] = bound * 1.5;
  const std::vector<std::string> lines = above_model(doc);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("cuda/pow/f32>f32/accurate"), std::string::npos) << lines[0];
  json report = report_without_gpu();
  attach(report, {doc});
  EXPECT_TRUE(
      report["implementations"][1]["measured"]["model_checks"][0]["above_model"].get<bool>());
}

TEST(MeasuredResults, AMeasurementAtItsModelIsNotAboveItsFourDigitRecord) {
  // The precise kernel's error is its model's exactly; the recorded bound keeps 4 digits.
  json doc = fixture();
  json& check = doc["entries"][0]["model_checks"][0];
  doc["entries"][0]["name"] = "cuda/precise/f64>f32/accurate";
  check["measured_max_abs"] = check["model_max_abs"] = 2.9802306733550665e-08;
  EXPECT_GT(2.9802306733550665e-08,
            core::cuda::recorded_model("cuda/precise/f64>f32/accurate")->near_abs);
  EXPECT_TRUE(above_model(doc).empty());
  check["measured_max_abs"] = 2.9802306733550666e-08 * 1.001;  // above the exact model then
  EXPECT_EQ(above_model(doc).size(), 1u);
}

TEST(MeasuredResults, AnEntryWithNoRecordedModelIsJudgedByTheModelWhenMeasured) {
  json doc = fixture();
  doc["entries"][0]["name"] = "cuda/not/recorded";
  EXPECT_TRUE(above_model(doc).empty());  // 0.0009 against 0.003586 when measured
  doc["entries"][0]["model_checks"][0]["measured_max_abs"] = 0.01;
  const std::vector<std::string> lines = above_model(doc);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("0.003586 when measured, none recorded now"), std::string::npos)
      << lines[0];
}

// The committed measurements (reports/measured/<gpu>/*.json): valid, and every measured maximum
// within the host model's bound recorded now; a model that a GPU beats is wrong.
TEST(MeasuredResults, EveryCommittedMeasurementIsWithinItsModel) {
  for (const json& doc : compiled_in()) {
    SCOPED_TRACE(doc["source"].get<std::string>());
    EXPECT_FALSE(doc["entries"].empty());
    for (const std::string& line : above_model(doc)) ADD_FAILURE() << line;
  }
}

}  // namespace
}  // namespace pev::reports::measured
