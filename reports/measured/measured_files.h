// The measured-results files of reports/measured/<gpu>/*.json, compiled in by CMake
// (measured_files_data.cc.in): (path in the repository, the file's text).
#pragma once

#include <utility>
#include <vector>

namespace pev::reports::measured {

const std::vector<std::pair<const char*, const char*>>& measured_files();

}  // namespace pev::reports::measured
