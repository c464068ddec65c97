// remove_temporaries_on_signal for real: a child process registers temporaries and directories,
// then dies of SIGINT or SIGTERM; the parent finds every registered file and directory gone, the
// child dead of that signal, and what was not registered (or holds a finished file) still there.
#include "peverify/support/temporary_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "peverify/support/atomic_file.h"
#include "peverify/support/scratch_testutil.h"

namespace pev {
namespace {

namespace fs = std::filesystem;

// A fresh directory of this test's own, removed when the process ends.
std::string fresh_dir() { return testutil::fresh_dir("temporary_files_test"); }

// Every path under dir, relative to it.
std::set<std::string> tree(const std::string& dir) {
  std::set<std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
    out.insert(fs::relative(e.path(), dir).string());
  return out;
}

bool put(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

// Exit codes of a child that could not set its scene up (it never reaches the signal).
enum Setup : int { kTemporaryFailed = 10, kDirectoryFailed, kFileFailed, kSignalIgnored };

// The child: every kind of registration, the registered temporaries' names written to `names`
// (one a line), then `sig`. With `inside_write`, the signal comes from within an atomic write's
// callback, its temporary half written.
[[noreturn]] void child(const std::string& dir, int sig, bool inside_write, int names) {
  // As a shell's background job may start it with SIGINT ignored; the test wants the handler.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  remove_temporaries_on_signal();
  std::string listed;
  for (int i = 0; i < 2; ++i) {
    std::string tmpl = dir + "/.out" + std::to_string(i) + ".tmp-XXXXXX";
    const int fd = make_registered_temporary(tmpl);
    if (fd < 0 || ::write(fd, "partial", 7) != 7) ::_exit(kTemporaryFailed);
    ::close(fd);
    listed += tmpl + "\n";
  }
  // Registered, then forgotten: it was renamed into place, finished.
  if (!put(dir + "/finished.txt", "done")) ::_exit(kFileFailed);
  register_temporary(dir + "/finished.txt");
  unregister_temporary(dir + "/finished.txt");
  if (!put(dir + "/unregistered.txt", "kept")) ::_exit(kFileFailed);
  // Created directories: one left empty, one holding a finished file.
  const std::string empty = dir + "/created_empty", full = dir + "/created_full";
  if (::mkdir(empty.c_str(), 0755) != 0 || ::mkdir(full.c_str(), 0755) != 0)
    ::_exit(kDirectoryFailed);
  register_created_directory(empty);
  register_created_directory(full);
  if (!put(full + "/result.json", "{}")) ::_exit(kFileFailed);
  // A scratch directory of the process's own files.
  const std::string scratch = dir + "/scratch";
  register_scratch_directory(scratch);
  if (::mkdir(scratch.c_str(), 0755) != 0) ::_exit(kDirectoryFailed);
  for (const char* f : {"/a.npy", "/b.npy", "/.hidden"})
    if (!put(scratch + f, "x")) ::_exit(kFileFailed);
  const ssize_t written = ::write(names, listed.data(), listed.size());
  (void)written;
  ::close(names);
  if (inside_write) {
    write_file_atomically(dir + "/table.npy", [sig](std::ostream& out) {
      out << std::string(1 << 16, 'x');
      out.flush();
      ::raise(sig);
    });
  } else {
    ::raise(sig);
  }
  ::_exit(kSignalIgnored);
}

struct Outcome {
  int status = 0;
  std::vector<std::string> temporaries;  // as the child named them
};

Outcome run_child(const std::string& dir, int sig, bool inside_write) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    child(dir, sig, inside_write, fds[1]);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  ::close(fds[0]);
  Outcome o;
  ::waitpid(pid, &o.status, 0);
  for (size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    o.temporaries.push_back(text.substr(at, end - at));
  return o;
}

void expect_cleaned_up(int sig, bool inside_write) {
  const std::string dir = fresh_dir();
  const Outcome o = run_child(dir, sig, inside_write);
  ASSERT_TRUE(WIFSIGNALED(o.status))
      << "the child exited with " << (WIFEXITED(o.status) ? WEXITSTATUS(o.status) : -1);
  EXPECT_EQ(WTERMSIG(o.status), sig);
  ASSERT_EQ(o.temporaries.size(), 2u) << "the child made its temporaries";
  for (const std::string& t : o.temporaries) {
    EXPECT_EQ(t.rfind(dir + "/.out", 0), 0u) << t;
    EXPECT_FALSE(fs::exists(t)) << t;
  }
  // Gone: the temporaries (the atomic write's too, and no table.npy), the empty created
  // directory, the scratch directory and its files. Kept: the rest.
  const std::set<std::string> kept = {"finished.txt", "unregistered.txt", "created_full",
                                      "created_full/result.json"};
  EXPECT_EQ(tree(dir), kept);
  fs::remove_all(dir);
}

TEST(TemporaryFiles, SigintRemovesEveryRegisteredFileAndDirectory) {
  expect_cleaned_up(SIGINT, false);
}

TEST(TemporaryFiles, SigtermRemovesEveryRegisteredFileAndDirectory) {
  expect_cleaned_up(SIGTERM, false);
}

// Interrupted inside write_file_atomically: neither the partial output nor its temporary stays.
TEST(TemporaryFiles, ASignalDuringAnAtomicWriteLeavesNoTrace) {
  expect_cleaned_up(SIGTERM, true);
  expect_cleaned_up(SIGINT, true);
}

// Without the handler the process dies as well, but its files stay: the test above is not
// passing by some other cleanup.
TEST(TemporaryFiles, WithoutTheHandlerTheFilesStay) {
  const std::string dir = fresh_dir();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGTERM, SIG_DFL);
    std::string tmpl = dir + "/.kept.tmp-XXXXXX";
    if (make_registered_temporary(tmpl) < 0) ::_exit(kTemporaryFailed);
    ::raise(SIGTERM);
    ::_exit(kSignalIgnored);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(tree(dir).size(), 1u);
  fs::remove_all(dir);
}

TEST(TemporaryFiles, MakeRegisteredTemporaryCreatesAUniqueFileOrSaysWhyNot) {
  const std::string dir = fresh_dir();
  std::set<std::string> made;
  for (int i = 0; i < 20; ++i) {
    std::string tmpl = dir + "/t-XXXXXX";
    const int fd = make_registered_temporary(tmpl);
    ASSERT_GE(fd, 0) << tmpl;
    struct stat st;
    ASSERT_EQ(::fstat(fd, &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ::close(fd);
    EXPECT_EQ(tmpl.size(), dir.size() + 9);
    EXPECT_EQ(tmpl.find("XXXXXX"), std::string::npos) << tmpl;
    made.insert(tmpl);
    unregister_temporary(tmpl);
  }
  EXPECT_EQ(made.size(), 20u);
  EXPECT_EQ(tree(dir).size(), 20u);
  std::string no_x = dir + "/t-XXXXX";
  errno = 0;
  EXPECT_EQ(make_registered_temporary(no_x), -1);
  EXPECT_EQ(errno, EINVAL);
  std::string absent = dir + "/absent/t-XXXXXX";
  EXPECT_EQ(make_registered_temporary(absent), -1);
  EXPECT_EQ(errno, ENOENT);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pev
