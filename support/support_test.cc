// What support/ promises: a file written atomically appears whole or not at all (and an old one is
// left as it was), parallel_for visits every index once and hands a body's exception to its
// caller after the threads join, and the spreads, escapes and JSON figures every room shares.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "peverify/support/atomic_file.h"
#include "peverify/support/html_escape.h"
#include "peverify/support/json_number.h"
#include "peverify/support/parallel.h"
#include "peverify/support/scratch_testutil.h"
#include "peverify/support/spread.h"

namespace pev {
namespace {

namespace fs = std::filesystem;

// A fresh directory of this test's own, removed when the process ends.
std::string fresh_dir() { return testutil::fresh_dir("support_test"); }

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    names.insert(e.path().filename().string());
  return names;
}

// Bytes of every value, NULs and newlines included.
std::string binary_text() {
  std::string s;
  for (int i = 0; i < 3 * 256; ++i) s += static_cast<char>(i % 256);
  return s;
}

TEST(AtomicFile, TheFileAppearsWholeAndNoTemporaryStays) {
  const std::string dir = fresh_dir(), path = dir + "/out.bin";
  const std::string text = binary_text();
  write_file_atomically(path, [&](std::ostream& out) { out << text; });
  EXPECT_EQ(contents(path), text);
  EXPECT_EQ(names_in(dir), std::set<std::string>{"out.bin"});
  // Permissions as a plain create gives them, not mkstemp's 0600.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
  // Written again: replaced whole.
  write_file_atomically(path, [](std::ostream& out) { out << "second"; });
  EXPECT_EQ(contents(path), "second");
  EXPECT_EQ(names_in(dir), std::set<std::string>{"out.bin"});
}

TEST(AtomicFile, AThrowingWriteLeavesNeitherTheTargetNorATemporary) {
  const std::string dir = fresh_dir(), path = dir + "/out.json";
  const auto half_then_throw = [](std::ostream& out) {
    out << "{\"half\": ";
    out.flush();
    throw FileError("the writer failed");
  };
  EXPECT_THROW(write_file_atomically(path, half_then_throw), FileError);
  EXPECT_TRUE(names_in(dir).empty()) << "left " << *names_in(dir).begin();
  // Another exception type reaches the caller too, and cleans up as well.
  EXPECT_ANY_THROW(write_file_atomically(
      path, [](std::ostream&) -> void { throw std::runtime_error("not a FileError"); }));
  EXPECT_TRUE(names_in(dir).empty());
}

TEST(AtomicFile, AFailedWriteLeavesTheExistingTargetByteForByte) {
  const std::string dir = fresh_dir(), path = dir + "/table.npy";
  const std::string old = binary_text();
  write_file_atomically(path, [&](std::ostream& out) { out << old; });
  EXPECT_THROW(write_file_atomically(path,
                                     [](std::ostream& out) {
                                       out << std::string(10000, 'x');
                                       throw FileError("interrupted");
                                     }),
               FileError);
  EXPECT_EQ(contents(path), old);
  // A stream gone bad (what a full disk does) is a FileError saying so, and changes nothing.
  try {
    write_file_atomically(path, [](std::ostream& out) {
      out << "partial";
      out.setstate(std::ios::badbit);
    });
    ADD_FAILURE() << "a bad stream was written";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("write failed"), std::string::npos) << e.what();
  }
  EXPECT_EQ(contents(path), old);
  EXPECT_EQ(names_in(dir), std::set<std::string>{"table.npy"});
}

// The FileError's message, or what happened instead.
std::string write_error(const std::string& path) {
  try {
    write_file_atomically(path, [](std::ostream& out) { out << "x"; });
    return "written";
  } catch (const FileError& e) {
    return std::string("FileError: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("not a FileError: ") + e.what();
  }
}

// write_error(path) as a user without root's override of permissions: root runs it in a child
// that drops to nobody first.
std::string write_error_unprivileged(const std::string& path) {
  if (::geteuid() != 0) return write_error(path);
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    const std::string r = ::setgid(65534) == 0 && ::setuid(65534) == 0
                              ? write_error(path)
                              : std::string("cannot drop root's privileges");
    const ssize_t ignored = ::write(fds[1], r.data(), r.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string r;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) r.append(buf, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return r;
}

TEST(AtomicFile, AnUnwritableDirectoryIsAOneLineFileError) {
  const std::string dir = fresh_dir(), path = dir + "/out.txt";
  ASSERT_EQ(::chmod(dir.c_str(), 0555), 0);
  const std::string r = write_error_unprivileged(path);
  ::chmod(dir.c_str(), 0755);
  ASSERT_EQ(r.rfind("FileError: ", 0), 0u) << r;
  EXPECT_EQ(r.find('\n'), std::string::npos) << r;
  EXPECT_NE(r.find(path), std::string::npos) << "names the file: " << r;
  EXPECT_NE(r.find("Permission denied"), std::string::npos) << r;
  EXPECT_TRUE(names_in(dir).empty());
  // A directory that does not exist, a directory as the target and no path at all: the same.
  for (const std::string& bad : {dir + "/absent/out.txt", dir, std::string()}) {
    const std::string e = write_error(bad);
    EXPECT_EQ(e.rfind("FileError: ", 0), 0u) << bad << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  EXPECT_TRUE(names_in(dir).empty());
}

TEST(Parallel, EveryIndexIsVisitedExactlyOnce) {
  for (const uint64_t n : {0u, 1u, 3u, 7u, 1000u})
    for (const int threads : {1, 2, 3, 8, 64, 0, -1}) {
      std::vector<std::atomic<int>> visits(n);
      parallel_for(n, threads, [&](uint64_t i) { visits.at(i).fetch_add(1); });
      int wrong = 0;
      for (uint64_t i = 0; i < n; ++i)
        if (visits[i].load() != 1 && ++wrong <= 3)
          ADD_FAILURE() << "n " << n << ", " << threads << " threads: index " << i << " visited "
                        << visits[i].load() << " times";
    }
}

TEST(Parallel, SeveralThreadsRunAtOnce) {
  std::mutex m;
  std::set<std::thread::id> ids;
  parallel_for(64, 4, [&](uint64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard lock(m);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_GT(ids.size(), 1u);
  EXPECT_LE(ids.size(), 4u);
}

TEST(Parallel, ABodysExceptionReachesTheCallerAfterEveryThreadJoins) {
  std::atomic<int> started{0}, finished{0};
  try {
    parallel_for(1000, 4, [&](uint64_t i) {
      started.fetch_add(1);
      if (i == 10) throw std::runtime_error("index 10");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      finished.fetch_add(1);
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 10");
  }
  // Every body that started had finished when the exception arrived, and the hand-out stopped.
  EXPECT_EQ(finished.load(), started.load() - 1);
  EXPECT_LT(started.load(), 1000);
  const int after = started.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(started.load(), after) << "a body ran after parallel_for returned";
}

TEST(Parallel, OnOneThreadTheFirstExceptionWinsAndNothingRunsAfterIt) {
  std::vector<uint64_t> visited;
  try {
    parallel_for(100, 1, [&](uint64_t i) {
      visited.push_back(i);
      if (i >= 5) throw std::out_of_range("index " + std::to_string(i));
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "index 5");
  }
  EXPECT_EQ(visited, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Parallel, ResolveThreads) {
  EXPECT_EQ(resolve_threads(1), 1);
  EXPECT_EQ(resolve_threads(7), 7);
  const int all = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(resolve_threads(0), all);
  EXPECT_EQ(resolve_threads(-4), all);
}

TEST(Spread, MedianAndRange) {
  const Spread none = spread_of({});
  EXPECT_EQ(none.median, 0);
  EXPECT_EQ(none.min, 0);
  EXPECT_EQ(none.max, 0);
  const Spread one = spread_of({2.5});
  EXPECT_EQ(one.median, 2.5);
  EXPECT_EQ(one.min, 2.5);
  EXPECT_EQ(one.max, 2.5);
  const Spread odd = spread_of({3, -1, 10, 2, 7});  // unsorted
  EXPECT_EQ(odd.median, 3);
  EXPECT_EQ(odd.min, -1);
  EXPECT_EQ(odd.max, 10);
  const Spread even = spread_of({4, 1, 8, 2});  // the mean of the two middle values
  EXPECT_EQ(even.median, 3);
  EXPECT_EQ(even.min, 1);
  EXPECT_EQ(even.max, 8);
}

TEST(Spread, AsJson) {
  const nlohmann::json j = to_json(spread_of({0.5, 0.25, 1.0}));
  EXPECT_EQ(j, nlohmann::json::parse(R"({"median": 0.5, "min": 0.25, "max": 1.0})"));
  EXPECT_EQ(j.size(), 3u);
}

TEST(HtmlEscape, EscapesTheFourCharactersAndNothingElse) {
  EXPECT_EQ(html_escape(R"(<a href="x">&</a>)"), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
  EXPECT_EQ(html_escape("&amp;"), "&amp;amp;");  // escaped again: the input is text, not HTML
  EXPECT_EQ(html_escape(""), "");
  const std::string plain = "cpu/pow 'single quotes' stay \t\n\xce\xbc";
  EXPECT_EQ(html_escape(plain), plain);
  EXPECT_EQ(html_escape(std::string_view("a\0b", 3)), std::string("a\0b", 3));
}

TEST(JsonNumber, FiniteFiguresAreNumbersAndTheRestNull) {
  for (const double x : {0.0, -0.0, 1.5, -2e-310, 1e308, std::numeric_limits<double>::max()}) {
    const nlohmann::json j = finite_or_null(x);
    ASSERT_TRUE(j.is_number_float()) << x;
    EXPECT_EQ(std::bit_cast<uint64_t>(j.get<double>()), std::bit_cast<uint64_t>(x)) << x;
  }
  for (const double x : {std::nan(""), std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity()})
    EXPECT_TRUE(finite_or_null(x).is_null()) << x;
  EXPECT_EQ(finite_or_null(INFINITY).dump(), "null");
}

}  // namespace
}  // namespace pev
