// The oracle's version: a hash of the sources that decide its values, computed at build time
// (oracle/source_hash.cmake). Exact tables cached across processes (table.h) are keyed by it, so
// a changed oracle never reads values an older one computed.
#pragma once

#include <string_view>
#include <vector>

namespace pev::oracle {

// 64 hexadecimal digits (SHA-256).
std::string_view oracle_version();
// The hashed sources, relative to the repository root.
const std::vector<std::string_view>& oracle_version_sources();

}  // namespace pev::oracle
