// Progress of long work on stderr: a bar on a terminal, plain lines otherwise, nothing if quiet.
#pragma once

#include <string>

namespace pev::cli {

class Progress {
 public:
  Progress(std::string what, bool quiet);
  ~Progress();
  // fraction in [0, 1]; `step` names what just finished.
  void update(const std::string& step, double fraction);

 private:
  std::string what_;
  bool quiet_, terminal_;
  int last_percent_ = -1;
};

}  // namespace pev::cli
