// The MPI side of `peverify sweep`: rank 0 hands the missing shards out one at a time to every
// rank (itself included); each rank writes its shards' files to the shared sweep directory.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "peverify/reports/study/study.h"

namespace pev::cli {

// True when this process was started by mpirun (OpenMPI's environment says so).
bool launched_by_mpirun();

#ifdef PEV_HAVE_MPI
// Runs the sweep across the ranks. `open` (rank 0 only) prepares the directory and returns the
// shards to compute; `finish` (rank 0 only, after MPI is finalized) merges and writes the report.
// Returns the process's exit code; exceptions from `open` and `finish` reach rank 0's caller.
int run_sweep_mpi(const reports::study::StudyPlan& plan, const std::string& dir, bool quiet,
                  const std::function<std::vector<size_t>()>& open,
                  const std::function<int()>& finish);
#endif

}  // namespace pev::cli
