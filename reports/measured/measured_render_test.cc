// The report as a user reads it where no GPU is present: a CUDA entry a GPU measured is a full row
// (its figures, the device and date), the device's section has the roofline, every timed kernel
// and each model check beside the model's bound; an entry nothing measured stays "modelled".
#include <gtest/gtest.h>

#include <fstream>

#include "peverify/reports/measured/measured_results.h"
#include "peverify/reports/render/cuda_measured.h"
#include "peverify/reports/render/render.h"

namespace pev::reports::measured {
namespace {

using nlohmann::json;

json fixture() {
  std::ifstream in(std::string(PEV_MEASURED_FIXTURE) + "/fixture-gpu.json");
  json doc = json::parse(in);
  doc["source"] = "reports/measured/fixture/fixture-gpu.json";
  return doc;
}

TEST(MeasuredRender, TheDeviceSectionShowsRooflineSpeedsAndModelChecks) {
  json report = {{"study", fixture()["study"]},
                 {"implementations",
                  {{{"name", "cuda/pow/f32>f32/accurate"},
                    {"available", false},
                    {"unavailable_reason", "no CUDA device"},
                    {"bands", json::array()}}}}};
  json doc = fixture();
  doc["entries"][0]["model_checks"][0]["measured_max_abs"] = 1.0;  // far above the model
  measured::attach(report, {doc});
  const std::string md = render::cuda_measured_markdown(report);
  EXPECT_NE(md.find("## CUDA entries, measured on a GPU"), std::string::npos) << md;
  EXPECT_NE(md.find("Fixture GPU (compute capability 9.0, driver 13.0"), std::string::npos) << md;
  EXPECT_NE(md.find("store roofline 3200 GB/s"), std::string::npos) << md;
  EXPECT_NE(
      md.find("| `cuda/pow/f32>f32/accurate` | 131072 x 4096 table | 1.07e+03 G/s | 4290 GB/s | "
              "0.67 |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| `cuda/rotate/cache-f32/f32` | q of 131072 x 32 x 128"), std::string::npos)
      << md;
  EXPECT_NE(md.find("ABOVE: the model is wrong"), std::string::npos) << md;
  EXPECT_NE(render::cuda_measured_html(report).find("<h3>Fixture GPU</h3>"), std::string::npos);
  EXPECT_EQ(render::measured_label(report["implementations"][0]),
            "measured on Fixture GPU, 2026-11-28, commit 0123456");
  EXPECT_EQ(render::cuda_measured_markdown(json::object()), "");
}

}  // namespace
}  // namespace pev::reports::measured
