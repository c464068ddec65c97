// The study behind `peverify report`: every shard of the plan on this machine's threads, then
// the quick benchmark and the recommendations.
#include "peverify/reports/study/study.h"

#include <fmt/chrono.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>

#include "peverify/core/implementation.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/encoding/vocabulary.h"
#include "peverify/reports/study/recommend.h"
#include "peverify/support/parallel.h"

namespace pev::reports::study {

void finish_study(StudyResult& result, size_t implementations,
                  const std::function<void(const std::string&, double)>& progress) {
  if (result.config.bench) {
    bench::Config bc;
    bc.quick = true;
    bc.filter = result.config.filter;
    bc.repetitions = 3;
    bc.min_time = 0.01;
    size_t timed = 0;
    result.bench = bench::run(bc, [&](const std::string& name) {
      progress("timing " + name,
               0.8 + 0.2 * std::min(1.0, static_cast<double>(++timed) / (implementations + 4)));
    });
    for (EntryResult& e : result.entries)
      for (const bench::Result& b : result.bench->results)
        if (b.impl == e.name && b.threads == 1) {
          e.values_per_s = b.values_per_s;
          e.roofline_ratio = b.roofline_ratio;
        }
  }
  const Vocabulary& words = vocabulary();  // what the recommendations answer
  const std::vector<std::string>& targets = words.targets.recommended;
  const std::vector<Candidate> candidates = candidates_of(result.entries);
  result.recommendations =
      recommend(candidates, words.output_dtypes, words.context_lengths, targets);
  result.models.clear();
  for (const std::string& name : result.config.rotary_models) {
    const ModelRope m = *model_preset(name);
    result.models.push_back(
        {name, m.rotary_dim, m.base, describe(m.rope), rope_double::attention_factor(m.rope)});
    for (Recommendation& r : recommend_for_model(candidates, name, words.model_output_dtypes,
                                                 result.config.rotary_positions, targets))
      result.recommendations.push_back(std::move(r));
  }
  result.rotations = study_rotation_scores();
  progress("timestep embeddings and multi-axis RoPE", 0.97);
  result.sinusoids = study_sinusoid_scores(result.config.threads);
  result.date = utc_timestamp();
}

std::string utc_timestamp() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

StudyResult run_study(const StudyConfig& config,
                      const std::function<void(const std::string&, double)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  StudyResult result;
  result.config = config;
  const StudyPlan plan(config);
  plan.prepare(config.threads, [&](double f) { progress("exact values", 0.3 * f); });
  const std::vector<ShardId>& shards = plan.shards();
  std::vector<ShardResult> results(shards.size());
  std::atomic<size_t> finished{0};
  std::mutex progress_mutex;
  parallel_for(shards.size(), config.threads, [&](uint64_t i) {
    results[i] = plan.run(shards[i], 1);
    std::lock_guard lock(progress_mutex);
    progress(plan.impls()[shards[i].entry]->name,
             0.3 + 0.5 * static_cast<double>(++finished) / shards.size());
  });
  result.entries = plan.merge(results);
  finish_study(result, plan.impls().size(), progress);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress("done", 1.0);
  return result;
}

}  // namespace pev::reports::study
