// The CUDA entries as a GPU measured them (docs/architecture.md §11.2): one JSON file per device
// under reports/measured/<gpu>/, written by `peverify measure-cuda` on a machine with the GPU and
// committed, compiled into peverify, and shown by `peverify report` on any machine: the entries
// with their measured figures, device and date, "modelled" only where nothing was measured, and
// each measured maximum beside its host model's bound (a measurement above its model is a bug in
// the model, flagged and tested).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pev::reports::measured {

// The format's name and version, the file's "format" field.
inline constexpr const char* kFormat = "peverify-measured-cuda/1";

// Checks a measured-results document; throws FileError naming `source` and what is wrong (one
// line). Checked: the format, the device, date and commit, each entry's report object, model
// checks and speed, the roofline.
void validate(const nlohmann::json& doc, const std::string& source);

// The committed measurements compiled into this build (reports/measured/*/*.json), each with its
// "source" (the file's path in the repository) added; validated once.
const std::vector<nlohmann::json>& compiled_in();

// Where a measured maximum is above the host model's bound now recorded for the entry
// (core/cuda/modelled_bounds.h): one line per case, empty when every measurement is within.
std::vector<std::string> above_model(const nlohmann::json& doc);

// Adds the measurements to a report (report.json): every implementation that is unavailable here
// and was measured gets the measured figures in place of the empty ones, and "measured" (device,
// date, commit, driver, source, the model checks beside the current model bound); its "modelled"
// label is dropped. Of several measurements of an entry the newest wins. The report's
// "cuda_measured" lists each device: roofline, table and rotation speeds. Implementations that ran
// here are left as measured here.
void attach(nlohmann::json& report, const std::vector<nlohmann::json>& measurements);

}  // namespace pev::reports::measured
