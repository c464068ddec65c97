// The one thread pool pattern peverify uses: indices handed out dynamically to a few threads.
#pragma once

#include <cstdint>
#include <functional>

namespace pev {

// Runs body(i) for i in [0, n) on `threads` threads (<= 0: one per hardware thread). The first
// exception thrown by a body stops the hand-out and is rethrown after all threads join.
void parallel_for(uint64_t n, int threads, const std::function<void(uint64_t)>& body);

// The number of threads `threads <= 0` stands for.
int resolve_threads(int threads);

}  // namespace pev
