// Output files appear whole or not at all: written to a temporary file beside the target, then
// renamed over it. A set of files that appear together is support/file_set.h.
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
// failure the temporary is removed: a failed write or rename (a full disk, a read-only
// directory) is a FileError naming path; an exception from write itself propagates as it was.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

// The first step of it: write(stream) into a new temporary in `dir` (".NAME.tmp-XXXXXX",
// registered for removal on SIGINT and SIGTERM, with the permissions a plain create would give),
// closed and checked; its path. `shown` is the output as messages name it. On failure the
// temporary is removed, as above. The caller renames it into place, or removes and unregisters it
// (unregister_temporary).
std::string write_temporary(const std::string& dir, const std::string& name,
                            const std::function<void(std::ostream&)>& write,
                            const std::string& shown);

}  // namespace pev
