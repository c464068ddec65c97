#include "peverify/cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace pev::cli {

Progress::Progress(std::string what, bool quiet)
    : what_(std::move(what)), quiet_(quiet), terminal_(isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() {
  if (!quiet_ && terminal_ && last_percent_ >= 0) std::fputc('\n', stderr);
}

void Progress::update(const std::string& step, double fraction) {
  if (quiet_) return;
  const int percent = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100);
  if (terminal_) {
    const int filled = percent * 30 / 100;
    fmt::print(stderr, "\r{} [{:<30}] {:3}% {:<48.48}", what_, std::string(filled, '#'), percent,
               step);
    std::fflush(stderr);
  } else if (percent / 10 != last_percent_ / 10 || percent == 100) {
    // Plain lines for logs: one every 10%.
    fmt::print(stderr, "{}: {}% ({})\n", what_, percent, step);
  }
  last_percent_ = percent;
}

}  // namespace pev::cli
