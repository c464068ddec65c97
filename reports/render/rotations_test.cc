// The rotations section rendered from report.json alone: the sampling said, each entry's cells,
// a NaN budget ratio read as a failure, and the entries that did not run with their reason.
#include "peverify/reports/render/rotations.h"

#include <gtest/gtest.h>

#include <string>

namespace pev::reports::render {
namespace {

nlohmann::json report_with_rotations() {
  using nlohmann::json;
  const json context = {
      {"context", 4096}, {"max", 1.25e-5}, {"median", 3e-6}, {"budget_ratio", 0.5}};
  const json nan_context = {
      {"context", 4096}, {"max", nullptr}, {"median", nullptr}, {"budget_ratio", nullptr}};
  return {
      {"rotations",
       {{"model", "llama-3.1-8b"},
        {"contexts", {4096}},
        {"samples", 256},
        {"seconds", 0.1},
        {"recommendations", {"q and k in float32: cpu/rotate/a (worst score error 1.25e-05)"}},
        {"entries",
         {{{"name", "cpu/rotate/a"}, {"compute", "float32"}, {"by_context", {context}}},
          {{"name", "cpu/rotate/b<nan>"}, {"compute", "float32"}, {"by_context", {nan_context}}}}},
        {"not_run", {{{"name", "cuda/rotate/c"}, {"reason", "no CUDA device"}}}}}}};
}

TEST(RotationsSection, MarkdownSaysWhatWasSampledAndEachEntrysVerdict) {
  const std::string md = rotation_scores_markdown(report_with_rotations());
  EXPECT_NE(md.find("256 (query, key) pairs SAMPLED"), std::string::npos) << md;
  EXPECT_NE(md.find("- **Use** q and k in float32: cpu/rotate/a"), std::string::npos) << md;
  EXPECT_NE(md.find("| `cpu/rotate/a` | float32 | max 1.25e-05, median 3e-06 | yes (0.5) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("max inf, median inf | NO (inf) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `cuda/rotate/c` | not run here: no CUDA device |"), std::string::npos) << md;
}

TEST(RotationsSection, HtmlEscapesNamesAndSpansTheNotRunRow) {
  const std::string html = rotation_scores_html(report_with_rotations());
  EXPECT_NE(html.find("<section id=\"rotations\">"), std::string::npos);
  EXPECT_NE(html.find("cpu/rotate/b&lt;nan&gt;"), std::string::npos) << html;
  EXPECT_NE(html.find("<td colspan=\"3\">not run here: no CUDA device</td>"), std::string::npos)
      << html;
}

TEST(RotationsSection, AReportWithoutRotationsRendersNothing) {
  EXPECT_EQ(rotation_scores_markdown(nlohmann::json::object()), "");
  EXPECT_EQ(rotation_scores_html(nlohmann::json::object()), "");
}

}  // namespace
}  // namespace pev::reports::render
