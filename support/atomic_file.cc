#include "peverify/support/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "peverify/support/temporary_files.h"

namespace pev {

namespace fs = std::filesystem;

std::string write_temporary(const std::string& dir, const std::string& name,
                            const std::function<void(std::ostream&)>& write,
                            const std::string& shown) {
  std::string tmp = (fs::path(dir) / ("." + name + ".tmp-XXXXXX")).string();
  // Registered, so that SIGINT or SIGTERM removes it too (support/temporary_files.h).
  const int fd = make_registered_temporary(tmp);
  if (fd < 0) throw FileError("cannot write " + shown + ": " + std::strerror(errno));
  ::close(fd);
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw FileError("cannot write " + shown + ": cannot open a temporary file");
      write(out);
      // close() writes what is buffered: a full disk shows there at the latest.
      out.close();
      if (!out) throw FileError("cannot write " + shown + ": write failed (disk full?)");
    }
    // mkstemp creates 0600; give the file the permissions a plain create would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    std::error_code ec;
    fs::permissions(tmp, static_cast<fs::perms>(0666 & ~mask), ec);
  } catch (...) {
    std::remove(tmp.c_str());
    unregister_temporary(tmp);
    throw;
  }
  return tmp;
}

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  const fs::path target(path);
  if (path.empty()) throw FileError("output path is empty");
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw FileError("cannot write " + path + ": is a directory");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string tmp = write_temporary(dir.string(), target.filename().string(), write, path);
  const bool renamed = std::rename(tmp.c_str(), path.c_str()) == 0;
  const int error = errno;
  if (!renamed) std::remove(tmp.c_str());
  unregister_temporary(tmp);
  if (!renamed) throw FileError("cannot write " + path + ": " + std::strerror(error));
}

}  // namespace pev
