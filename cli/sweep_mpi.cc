#include "peverify/cli/sweep_mpi.h"

#include <fmt/format.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "peverify/cli/command.h"
#include "peverify/reports/study/sweep.h"
#include "peverify/support/atomic_file.h"

namespace pev::cli {
namespace {

constexpr int kTagRequest = 1;  // worker -> rank 0: the shard it finished (-1: none), wants more
constexpr int kTagAssign = 2;   // rank 0 -> worker: a shard index, or -1: stop
constexpr int kTagStatus = 3;

// Polls rather than blocking in MPI: OpenMPI's blocking calls spin, and would take a core from
// the rank's own computation (rank 0 computes shards while it dispatches).
void wait_for(MPI_Request& request) {
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

[[noreturn]] void abort_job(int rank, const std::string& what) {
  fmt::print(stderr, "peverify: error: sweep rank {}: {}\n", rank, what);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, kExitInternalError);
  std::abort();
}

int worker(const reports::study::StudyPlan& plan, const std::string& dir, int rank) {
  long long finished = -1;
  for (;;) {
    MPI_Send(&finished, 1, MPI_LONG_LONG, 0, kTagRequest, MPI_COMM_WORLD);
    long long assigned = -1;
    MPI_Request request;
    MPI_Irecv(&assigned, 1, MPI_LONG_LONG, 0, kTagAssign, MPI_COMM_WORLD, &request);
    wait_for(request);
    if (assigned < 0) break;
    try {
      reports::study::compute_shard(plan, dir, static_cast<size_t>(assigned), 1);
    } catch (const std::exception& e) {
      abort_job(rank, plan.shards()[assigned].key() + ": " + e.what());
    }
    finished = assigned;
  }
  MPI_Finalize();
  return kExitOk;
}

}  // namespace

int run_sweep_mpi(const reports::study::StudyPlan& plan, const std::string& dir, bool quiet,
                  const std::function<std::vector<size_t>()>& open,
                  const std::function<int()>& finish) {
  int provided = 0, rank = 0, size = 1;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  // Rank 0 alone reads and writes the directory's record; the others learn whether to go on.
  int status = 0;
  std::vector<size_t> missing;
  std::exception_ptr open_error;
  if (rank == 0) {
    try {
      missing = open();
    } catch (...) {
      open_error = std::current_exception();
      status = 1;
    }
    for (int r = 1; r < size; ++r) MPI_Send(&status, 1, MPI_INT, r, kTagStatus, MPI_COMM_WORLD);
  } else {
    MPI_Request request;
    MPI_Irecv(&status, 1, MPI_INT, 0, kTagStatus, MPI_COMM_WORLD, &request);
    wait_for(request);
  }
  if (status != 0) {
    MPI_Finalize();
    if (open_error) std::rethrow_exception(open_error);
    return kExitBadInput;
  }
  if (rank != 0) return worker(plan, dir, rank);

  std::mutex mutex;
  size_t next = 0, done = 0;
  const auto take = [&]() -> long long {
    std::lock_guard lock(mutex);
    return next < missing.size() ? static_cast<long long>(missing[next++]) : -1;
  };
  const auto record = [&](long long shard, int by) {
    std::lock_guard lock(mutex);
    ++done;
    if (!quiet)
      fmt::print(stderr, "peverify sweep: [{}/{}] {} (rank {})\n", done, missing.size(),
                 plan.shards()[shard].key(), by);
  };
  std::atomic<bool> failed{false};
  std::string failure;
  std::thread local([&] {
    try {
      for (long long i; !failed && (i = take()) >= 0;) {
        reports::study::compute_shard(plan, dir, static_cast<size_t>(i), 1);
        record(i, 0);
      }
    } catch (const std::exception& e) {
      failure = e.what();
      failed = true;
    }
  });
  for (int active = size - 1; active > 0 && !failed;) {
    int flag = 0;
    MPI_Status probe;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &flag, &probe);
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    long long finished = -1;
    MPI_Recv(&finished, 1, MPI_LONG_LONG, probe.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (finished >= 0) record(finished, probe.MPI_SOURCE);
    const long long assigned = take();
    MPI_Send(&assigned, 1, MPI_LONG_LONG, probe.MPI_SOURCE, kTagAssign, MPI_COMM_WORLD);
    if (assigned < 0) --active;
  }
  local.join();
  if (failed) abort_job(0, failure);
  MPI_Finalize();
  return finish();
}

}  // namespace pev::cli
