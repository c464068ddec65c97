// A fresh directory for a test's files under GoogleTest's TempDir, removed with all it holds
// when the test process ends (ctest runs tests side by side, so each gets its own). Forked
// children leave with _exit and remove nothing.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace pev::testutil {

class ScratchDirectories {
 public:
  static std::string make(const std::string& prefix) {
    static ScratchDirectories all;
    std::string tmpl = ::testing::TempDir() + "/" + prefix + ".XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    all.made_.push_back(tmpl);
    return tmpl;
  }
  ~ScratchDirectories() {
    if (::getpid() != owner_) return;
    std::error_code ec;
    for (const std::string& d : made_) std::filesystem::remove_all(d, ec);
  }

 private:
  ScratchDirectories() : owner_(::getpid()) {}
  pid_t owner_;
  std::vector<std::string> made_;
};

inline std::string fresh_dir(const std::string& prefix = "support_test") {
  return ScratchDirectories::make(prefix);
}

}  // namespace pev::testutil
