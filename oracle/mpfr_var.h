// Small owners around raw MPFR: a variable that frees itself, and the per-thread caches MPFR
// keeps (pi, log 2, ...) freed when the thread that filled them ends.
#pragma once

#include <mpfr.h>

#include <utility>

namespace pev::oracle {

// An mpfr_t that frees itself, so that an exception cannot leak it. The arithmetic stays raw MPFR:
// every rounding is one the error bounds count.
class MpfrVar {
 public:
  explicit MpfrVar(mpfr_prec_t precision = 64) { mpfr_init2(v_, precision); }
  ~MpfrVar() { mpfr_clear(v_); }
  MpfrVar(const MpfrVar&) = delete;
  MpfrVar& operator=(const MpfrVar&) = delete;
  MpfrVar(MpfrVar&& other) noexcept {
    mpfr_init2(v_, MPFR_PREC_MIN);
    mpfr_swap(v_, other.v_);
  }
  MpfrVar& operator=(MpfrVar&& other) noexcept {
    mpfr_swap(v_, other.v_);
    return *this;
  }

  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }
  operator mpfr_ptr() { return v_; }           // NOLINT: reads as MPFR's own mpfr_t
  operator mpfr_srcptr() const { return v_; }  // NOLINT

 private:
  mpfr_t v_;
};

// Called before a thread's first MPFR function that may fill MPFR's caches (constants, sin/cos,
// log): registers a thread_local guard whose destructor frees the calling thread's caches
// (mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE)) when the thread ends, and, once per process, a
// handler that frees the shared cache at exit. Without it every worker thread leaves its copy of
// pi behind, which LeakSanitizer reports. Cheap after the first call on a thread.
void free_mpfr_caches_at_thread_exit();

}  // namespace pev::oracle
