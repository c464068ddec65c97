// Output that appears whole or not at all, for more than one file: a set of files written into a
// directory that exists only once they are all written, and directories made for output that a
// failed run removes again. support/atomic_file.h is the one-file case.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace pev {

// The directories `dir` needs that do not exist yet, made (outermost first) and registered for
// removal on SIGINT and SIGTERM while empty (support/temporary_files.h). A run that then fails
// calls remove_if_empty() on them: a directory this run made leaves with it unless it holds
// something by then; one that succeeds calls keep_directories(), and they stay whatever comes.
std::vector<std::string> make_directories(const std::string& dir);
void remove_if_empty(const std::vector<std::string>& made);
void keep_directories(const std::vector<std::string>& made);

// The nearest ancestor of `dir` that exists (`dir` itself when it does): where a FileSet keeps
// its temporaries, on the filesystem `dir` will be made on. A path that exists but is not a
// directory, or an ancestor that is not one, is a FileError.
std::string nearest_existing_directory(const std::string& dir);

// Files that appear in `dir` together, once all are written. Each write() writes its file now,
// to a temporary in nearest_existing_directory(dir) (registered for removal on SIGINT and
// SIGTERM, support/temporary_files.h); commit() then makes `dir` where missing and renames every
// file into it, in the order written. A write that fails (an exception from the callback, a full
// disk), or a commit that does, removes every temporary and every directory the set made, and
// throws FileError with one line: a failed run leaves nothing behind. A set destroyed without a
// commit removes its temporaries. Each rename replaces a file of the same name atomically; the
// set as a whole is not one rename, so a commit that fails halfway leaves the files renamed
// before it (a rename within one filesystem fails only when the directory is taken away).
class FileSet {
 public:
  explicit FileSet(std::string dir);
  FileSet(const FileSet&) = delete;
  FileSet& operator=(const FileSet&) = delete;
  ~FileSet();

  void write(const std::string& name, const std::function<void(std::ostream&)>& write);
  // The paths of the files, in the order written.
  std::vector<std::string> commit();

 private:
  void discard() noexcept;
  std::string dir_, staging_;
  std::vector<std::pair<std::string, std::string>> staged_;  // (temporary, final name)
  bool committed_ = false;
};

}  // namespace pev
