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

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (path.empty()) throw FileError("output path is empty");
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw FileError("cannot write " + path + ": is a directory");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmp = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  // Registered, so that SIGINT or SIGTERM removes it too (support/temporary_files.h).
  const int fd = make_registered_temporary(tmp);
  if (fd < 0) throw FileError("cannot write " + path + ": " + std::strerror(errno));
  ::close(fd);
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw FileError("cannot write " + path + ": cannot open a temporary file");
      write(out);
      out.flush();
      if (!out) throw FileError("cannot write " + path + ": write failed (disk full?)");
    }
    // mkstemp creates 0600; give the file the permissions a plain create would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    fs::permissions(tmp, static_cast<fs::perms>(0666 & ~mask), ec);
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      throw FileError("cannot write " + path + ": " + std::strerror(errno));
  } catch (...) {
    std::remove(tmp.c_str());
    unregister_temporary(tmp);
    throw;
  }
  unregister_temporary(tmp);
}

}  // namespace pev
