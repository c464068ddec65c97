#include "peverify/support/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pev {

int resolve_threads(int threads) {
  return threads > 0 ? threads
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void parallel_for(uint64_t n, int threads, const std::function<void(uint64_t)>& body) {
  threads =
      static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(resolve_threads(threads)), n));
  std::atomic<uint64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (uint64_t i; (i = next.fetch_add(1)) < n;) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next.store(n);
      }
    }
  };
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);
}

}  // namespace pev
