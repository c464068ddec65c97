// support/file_set.h: a set of files appears together in a directory made only then, and a
// failed write (a callback that throws, a stream that goes bad: the fake writers of a full disk)
// leaves nothing behind, neither temporaries nor directories; an existing directory's old files
// stay as they were until the set commits.
#include "peverify/support/file_set.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "peverify/support/atomic_file.h"
#include "peverify/support/scratch_testutil.h"
#include "peverify/support/temporary_files.h"

namespace pev {
namespace {

namespace fs = std::filesystem;

std::set<std::string> tree(const std::string& dir) {
  std::set<std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
    out.insert(fs::relative(e.path(), dir).string());
  return out;
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const auto text = [](std::string s) { return [s](std::ostream& out) { out << s; }; };

TEST(FileSet, TheFilesAppearTogetherInADirectoryMadeOnlyAtTheCommit) {
  const std::string root = testutil::fresh_dir("file_set_test");
  const std::string dir = root + "/a/b/report";
  FileSet files(dir);
  files.write("one.json", text("{}"));
  files.write("two.md", text("# two"));
  EXPECT_FALSE(fs::exists(root + "/a")) << "the directory exists before the commit";
  const std::vector<std::string> paths = files.commit();
  EXPECT_EQ(paths, (std::vector<std::string>{dir + "/one.json", dir + "/two.md"}));
  EXPECT_EQ(contents(dir + "/one.json"), "{}");
  EXPECT_EQ(contents(dir + "/two.md"), "# two");
  EXPECT_EQ(tree(root), (std::set<std::string>{"a", "a/b", "a/b/report", "a/b/report/one.json",
                                               "a/b/report/two.md"}))
      << "a temporary stayed";
}

TEST(FileSet, AWriteThatFailsLeavesNothingBehind) {
  const std::string root = testutil::fresh_dir("file_set_test");
  FileSet files(root + "/new/report");
  files.write("one.json", text("{}"));
  // A callback that throws, as a renderer's might; then a stream that goes bad, as on a full disk.
  EXPECT_THROW(files.write("two.md", [](std::ostream&) { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_TRUE(tree(root).empty()) << "left: " << *tree(root).begin();
  FileSet again(root + "/new/report");
  again.write("one.json", text("{}"));
  EXPECT_THROW(again.write("two.md", [](std::ostream& out) { out.setstate(std::ios::badbit); }),
               FileError);
  EXPECT_TRUE(tree(root).empty());
}

TEST(FileSet, ASetNeverCommittedRemovesItsTemporaries) {
  const std::string root = testutil::fresh_dir("file_set_test");
  {
    FileSet files(root + "/report");
    files.write("one.json", text("{}"));
    EXPECT_EQ(tree(root).size(), 1u);  // its temporary, in the nearest existing directory
  }
  EXPECT_TRUE(tree(root).empty());
}

TEST(FileSet, AnExistingDirectoryKeepsItsOldFilesUntilTheCommitReplacesThem) {
  const std::string dir = testutil::fresh_dir("file_set_test");
  write_file_atomically(dir + "/one.json", text("old"));
  write_file_atomically(dir + "/other.txt", text("kept"));
  {
    FileSet files(dir);
    files.write("one.json", text("new"));
    EXPECT_THROW(files.write("two", [](std::ostream& out) { out.setstate(std::ios::badbit); }),
                 FileError);
  }
  EXPECT_EQ(contents(dir + "/one.json"), "old");
  EXPECT_EQ(tree(dir), (std::set<std::string>{"one.json", "other.txt"}));
  FileSet files(dir);
  files.write("one.json", text("new"));
  files.commit();
  EXPECT_EQ(contents(dir + "/one.json"), "new");
  EXPECT_EQ(contents(dir + "/other.txt"), "kept");
}

TEST(FileSet, APathThroughAFileIsAFileError) {
  const std::string root = testutil::fresh_dir("file_set_test");
  write_file_atomically(root + "/plain", text("x"));
  EXPECT_THROW(FileSet(root + "/plain"), FileError);
  EXPECT_THROW(FileSet(root + "/plain/report"), FileError);
  EXPECT_THROW(FileSet(""), FileError);
}

TEST(MakeDirectories, RemovesOnlyTheEmptyDirectoriesItMade) {
  const std::string root = testutil::fresh_dir("file_set_test");
  fs::create_directory(root + "/there");
  const std::vector<std::string> made = make_directories(root + "/there/x/y");
  EXPECT_EQ(made.size(), 2u);
  write_file_atomically(root + "/there/x/kept", text("k"));
  remove_if_empty(made);
  EXPECT_EQ(tree(root), (std::set<std::string>{"there", "there/x", "there/x/kept"}));
  EXPECT_TRUE(make_directories(root + "/there").empty());
}

// A signal between making the directories and filling them removes them, innermost first; once
// kept they stay.
TEST(MakeDirectories, ASignalRemovesTheEmptyDirectoriesMadeAndKeepsTheKeptOnes) {
  const std::string root = testutil::fresh_dir("file_set_test");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    remove_temporaries_on_signal();
    keep_directories(make_directories(root + "/kept/x"));
    make_directories(root + "/gone/y/z");
    ::raise(SIGTERM);
    ::_exit(3);  // the signal did not end the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(tree(root), (std::set<std::string>{"kept", "kept/x"}));
}

}  // namespace
}  // namespace pev
