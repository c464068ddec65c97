#include "cli/progress.h"

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
    std::fprintf(stderr, "\r%s [%.*s%*s] %3d%% %-48.48s", what_.c_str(), filled,
                 "##############################", 30 - filled, "", percent, step.c_str());
    std::fflush(stderr);
  } else if (percent / 10 != last_percent_ / 10 || percent == 100) {
    // Plain lines for logs: one every 10%.
    std::fprintf(stderr, "%s: %d%% (%s)\n", what_.c_str(), percent, step.c_str());
  }
  last_percent_ = percent;
}

}  // namespace pev::cli
