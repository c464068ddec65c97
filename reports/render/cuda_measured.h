// The report's section on the CUDA entries a GPU measured (docs/architecture.md §11.2), rendered
// from report.json's "cuda_measured" (reports/measured/measured_results.h attaches it): per device,
// the store roofline, every table entry's and rotation's speed beside it, and each entry's error
// beside its host model's bound.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pev::reports::render {

// The section (empty when nothing was measured).
std::string cuda_measured_markdown(const nlohmann::json& report);
std::string cuda_measured_html(const nlohmann::json& report);

// Whether an implementation shows a GPU's figures in place of its own (it could not run here, and
// the measured study is this report's).
bool shows_measured_figures(const nlohmann::json& entry);

// "measured on NVIDIA H100 80GB HBM3, 2026-11-28, commit 0123456" for an implementation that
// carries "measured"; empty otherwise.
std::string measured_label(const nlohmann::json& entry);

}  // namespace pev::reports::render
