// Output files appear whole or not at all: written to a temporary file beside the target, then
// renamed over it.
#pragma once

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>

namespace pev {

// A file that cannot be read or written, with a one-line reason for the user.
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Calls write(stream) on a temporary file in path's directory, then renames it to path. On any
// failure (including an exception from write) the temporary is removed and FileError thrown.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

}  // namespace pev
