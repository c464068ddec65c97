#include "peverify/support/temporary_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string_view>

namespace pev {
namespace {

// A signal handler may call unlink() but neither malloc nor a lock: the paths live in a fixed
// array, and a slot's state says whether the handler may read its path.
constexpr int kSlots = 64;
constexpr size_t kPathBytes = 4096;
enum : int { kFree = 0, kClaimed = 1, kReady = 2, kReadyDirectory = 3, kReadyScratch = 4 };
std::atomic<int> g_state[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the states");
char g_path[kSlots][kPathBytes];

// Empties and removes a scratch directory with system calls only (opendir allocates).
void remove_scratch(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    ssize_t n;
    while ((n = ::getdents64(fd, buf, sizeof buf)) > 0)
      for (ssize_t off = 0; off < n;) {
        const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
        if (std::strcmp(d->d_name, ".") != 0 && std::strcmp(d->d_name, "..") != 0)
          ::unlinkat(fd, d->d_name, 0);
        off += d->d_reclen;
      }
    ::close(fd);
  }
  ::rmdir(path);
}

void on_signal(int sig) {
  const int saved = errno;
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load(std::memory_order_acquire) == kReady) ::unlink(g_path[i]);
  // After the files: a directory goes only when they were all it held.
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load(std::memory_order_acquire) == kReadyDirectory) ::rmdir(g_path[i]);
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load(std::memory_order_acquire) == kReadyScratch) remove_scratch(g_path[i]);
  errno = saved;
  // SA_RESETHAND restored the default action; it ends the process once the handler returns.
  ::raise(sig);
}

void add(const std::string& path, int kind) {
  // A path too long or a full table is not registered: the file is then only removed by the
  // usual error path, as before the registry existed.
  if (path.size() >= kPathBytes) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_state[i].compare_exchange_strong(expected, kClaimed, std::memory_order_acquire))
      continue;
    std::memcpy(g_path[i], path.c_str(), path.size() + 1);
    g_state[i].store(kind, std::memory_order_release);
    return;
  }
}

void remove(const std::string& path, int kind) {
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load(std::memory_order_acquire) == kind && path == g_path[i]) {
      g_state[i].store(kFree, std::memory_order_release);
      return;
    }
}

}  // namespace

void register_temporary(const std::string& path) { add(path, kReady); }
void unregister_temporary(const std::string& path) { remove(path, kReady); }
void register_created_directory(const std::string& path) { add(path, kReadyDirectory); }
void unregister_created_directory(const std::string& path) { remove(path, kReadyDirectory); }
void register_scratch_directory(const std::string& path) { add(path, kReadyScratch); }
void unregister_scratch_directory(const std::string& path) { remove(path, kReadyScratch); }

int make_registered_temporary(std::string& path_template) {
  // mkstemp would create the file before it could be registered, and a signal in between would
  // strand it: the name is registered first, then created exclusively (mkstemp's O_EXCL).
  constexpr std::string_view kX = "XXXXXX";
  if (path_template.size() < kX.size() ||
      path_template.compare(path_template.size() - kX.size(), kX.size(), kX) != 0) {
    errno = EINVAL;
    return -1;
  }
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(::getpid()));
  for (int attempt = 0; attempt < 1000; ++attempt) {
    for (size_t i = path_template.size() - kX.size(); i < path_template.size(); ++i)
      path_template[i] = kChars[rng() % (sizeof kChars - 1)];
    register_temporary(path_template);
    const int fd = ::open(path_template.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    const int err = errno;
    unregister_temporary(path_template);
    errno = err;
    if (err != EEXIST) return -1;
  }
  return -1;  // errno: EEXIST
}

void remove_temporaries_on_signal() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  // Both signals are held while the handler runs, so that a second one waits for the cleanup.
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  action.sa_flags = SA_RESETHAND;
  for (const int sig : {SIGINT, SIGTERM}) {
    // A signal ignored at startup (nohup, a shell's background job) stays ignored.
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &action, nullptr);
  }
}

}  // namespace pev
