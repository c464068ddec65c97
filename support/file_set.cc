#include "peverify/support/file_set.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "peverify/support/atomic_file.h"
#include "peverify/support/temporary_files.h"

namespace pev {

namespace fs = std::filesystem;

std::vector<std::string> make_directories(const std::string& dir) {
  std::vector<std::string> missing;
  std::error_code ec;
  for (fs::path p = fs::path(dir).lexically_normal(); !p.empty() && !fs::exists(p, ec);
       p = p.parent_path()) {
    missing.insert(missing.begin(), p.string());
    if (p == p.parent_path()) break;
  }
  std::vector<std::string> made;
  for (const std::string& d : missing) {
    if (!fs::create_directory(d, ec) && ec) {
      const std::string why = ec.message();
      remove_if_empty(made);
      throw FileError("cannot create the directory " + d + ": " + why);
    }
    made.push_back(d);
  }
  // Innermost first: the signal handler removes them in this order, each only when empty.
  for (auto d = made.rbegin(); d != made.rend(); ++d) register_created_directory(*d);
  return made;
}

void remove_if_empty(const std::vector<std::string>& made) {
  for (auto d = made.rbegin(); d != made.rend(); ++d) {
    std::error_code ec;
    if (fs::is_empty(*d, ec) && !ec) fs::remove(*d, ec);
    unregister_created_directory(*d);
  }
}

void keep_directories(const std::vector<std::string>& made) {
  for (const std::string& d : made) unregister_created_directory(d);
}

std::string nearest_existing_directory(const std::string& dir) {
  if (dir.empty()) throw FileError("the output directory is empty");
  std::error_code ec;
  fs::path p = fs::path(dir).lexically_normal();
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
  if (p.empty()) p = ".";
  if (!fs::is_directory(p, ec))
    throw FileError("cannot write into " + dir + ": " + p.string() + " is not a directory");
  return p.string();
}

FileSet::FileSet(std::string dir)
    : dir_(std::move(dir)), staging_(nearest_existing_directory(dir_)) {}

FileSet::~FileSet() {
  if (!committed_) discard();
}

void FileSet::discard() noexcept {
  for (const auto& [temporary, name] : staged_) {
    std::remove(temporary.c_str());
    unregister_temporary(temporary);
  }
  staged_.clear();
}

void FileSet::write(const std::string& name, const std::function<void(std::ostream&)>& write) {
  try {
    staged_.emplace_back(write_temporary(staging_, name, write, dir_ + "/" + name), name);
  } catch (...) {
    discard();
    throw;
  }
}

std::vector<std::string> FileSet::commit() {
  std::vector<std::string> made;
  std::vector<std::string> paths;
  try {
    made = make_directories(dir_);
    for (const auto& [temporary, name] : staged_) {
      const std::string path = (fs::path(dir_) / name).string();
      if (std::rename(temporary.c_str(), path.c_str()) != 0)
        throw FileError("cannot write " + path + ": " + std::strerror(errno));
      unregister_temporary(temporary);
      paths.push_back(path);
    }
    keep_directories(made);
  } catch (...) {
    staged_.erase(staged_.begin(), staged_.begin() + static_cast<ptrdiff_t>(paths.size()));
    discard();
    remove_if_empty(made);
    throw;
  }
  committed_ = true;
  staged_.clear();
  return paths;
}

}  // namespace pev
