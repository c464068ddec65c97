// `peverify sweep` (docs/architecture.md §8): the study's shards computed by threads or MPI ranks,
// each recorded in DIR/shards/<key>.json as it completes (so a killed sweep resumes), then merged
// in canonical shard order into the same report `peverify report` writes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "peverify/reports/study/study.h"

namespace pev::reports::study {

// Identifies a study (config and registry); a sweep directory holds the shards of one study.
std::string study_fingerprint(const StudyPlan& plan);

// Creates DIR and DIR/shards and records the study in DIR/sweep.json; throws FileError when DIR
// already holds a different study's sweep.
void open_sweep_dir(const StudyPlan& plan, const std::string& dir);

std::string shard_path(const std::string& dir, const ShardId& shard);

// Indices (into plan.shards()) of the shards without a valid result file in DIR.
std::vector<size_t> missing_shards(const StudyPlan& plan, const std::string& dir);

// Computes shard `index` and writes its result file atomically.
void compute_shard(const StudyPlan& plan, const std::string& dir, size_t index, int threads);

// Computes the given shards on `threads` threads, writing each result file as it completes.
void run_shards(const StudyPlan& plan, const std::string& dir, const std::vector<size_t>& shards,
                int threads, const std::function<void(size_t done)>& progress);

// Merges every shard's result file (all must be present) in canonical order, then runs the quick
// benchmark (when configured) and the recommendations.
StudyResult merge_sweep(const StudyPlan& plan, const std::string& dir,
                        const std::function<void(const std::string&, double)>& progress);

}  // namespace pev::reports::study
