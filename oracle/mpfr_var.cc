#include "peverify/oracle/mpfr_var.h"

#include <cstdlib>
#include <mutex>

namespace pev::oracle {
namespace {

// Destroyed when its thread ends (the main thread's at exit, before static destructors).
struct LocalCacheGuard {
  ~LocalCacheGuard() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
};

}  // namespace

void free_mpfr_caches_at_thread_exit() {
  // The first odr-use on a thread constructs the guard, which registers its destructor.
  thread_local LocalCacheGuard guard;
  (void)guard;
  static std::once_flag at_exit;
  std::call_once(at_exit, [] { std::atexit([] { mpfr_free_cache2(MPFR_FREE_GLOBAL_CACHE); }); });
}

}  // namespace pev::oracle
