#include "peverify/reports/study/sweep.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "peverify/core/registry.h"
#include "peverify/support/atomic_file.h"
#include "peverify/support/file_set.h"
#include "peverify/support/parallel.h"

namespace pev::reports::study {
namespace {

using nlohmann::json;

// The layout of a shard file's result; part of the study's fingerprint, so that a sweep
// directory written by another layout is recomputed rather than misread.
constexpr int kShardFormat = 6;

// Doubles travel as %a text: exact, and infinities survive (JSON numbers cannot hold them).
std::string hex(double x) { return fmt::format("{:a}", x); }

double unhex(const json& j) {
  const std::string s = j.get<std::string>();
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') throw std::invalid_argument("bad number " + s);
  return x;
}

json config_json(const StudyConfig& c) {
  return {{"d_models", c.d_models},
          {"bases", c.bases},
          {"exhaustive_positions", c.exhaustive_positions},
          {"exhaustive_values", c.exhaustive_values},
          {"max_position", c.max_position},
          {"sampled_blocks", c.sampled_blocks},
          {"filter", c.filter},
          {"bench", c.bench},
          {"rotary_models", c.rotary_models},
          {"rotary_positions", c.rotary_positions}};
}

json to_json(const measure::Figures& f) {
  return {{"elements", f.elements},
          {"nan", f.nan},
          {"inf", f.inf},
          {"sign_mismatch", f.sign_mismatch},
          {"over_claim", f.over_claim},
          {"failed_sign", f.failed_sign},
          {"failed_value", f.failed_value},
          {"max_weighted_angle", hex(f.max_weighted_angle)},
          {"max_abs", hex(f.max_abs)},
          {"sum_abs", hex(f.sum_abs)},
          {"max_ulp", hex(f.max_ulp)},
          {"worst", {hex(f.worst_fraction), f.worst_pos, f.worst_column}},
          {"vacuous", {f.vacuous[0], f.vacuous[1]}},
          {"first_vacuous_pos", {f.first_vacuous_pos[0], f.first_vacuous_pos[1]}}};
}

measure::Figures figures_from_json(const json& j) {
  measure::Figures f;
  f.elements = j.at("elements").get<uint64_t>();
  f.nan = j.at("nan").get<uint64_t>();
  f.inf = j.at("inf").get<uint64_t>();
  f.sign_mismatch = j.at("sign_mismatch").get<uint64_t>();
  f.over_claim = j.at("over_claim").get<uint64_t>();
  f.failed_sign = j.at("failed_sign").get<uint64_t>();
  f.failed_value = j.at("failed_value").get<uint64_t>();
  f.max_weighted_angle = unhex(j.at("max_weighted_angle"));
  f.max_abs = unhex(j.at("max_abs"));
  f.sum_abs = unhex(j.at("sum_abs"));
  f.max_ulp = unhex(j.at("max_ulp"));
  f.worst_fraction = unhex(j.at("worst").at(0));
  f.worst_pos = j.at("worst").at(1).get<uint64_t>();
  f.worst_column = j.at("worst").at(2).get<int>();
  for (int i = 0; i < 2; ++i) {
    f.vacuous[i] = j.at("vacuous").at(i).get<uint64_t>();
    f.first_vacuous_pos[i] = j.at("first_vacuous_pos").at(i).get<uint64_t>();
  }
  return f;
}

json to_json(const ShardResult& s) {
  json j;
  j["bands"] = json::array();
  for (const Band& b : s.bands)
    j["bands"].push_back({b.first, b.last, to_json(b.figures), hex(b.max_ulp_floored)});
  j["curve"] = json::array();
  for (const auto& [octave, e] : s.curve) j["curve"].push_back({octave, hex(e)});
  j["verdicts"] = json::array();
  for (const properties::PropertyVerdict& v : s.verdicts) {
    json figures = json::object();
    for (const auto& [name, x] : v.figures) figures[name] = hex(x);
    json worst = json::array();
    for (const measure::Finding& f : v.worst)
      worst.push_back({f.pos, f.column, hex(f.got), hex(f.expected), hex(f.error), hex(f.allowed),
                       hex(f.ulp), f.what});
    j["verdicts"].push_back({{"property", v.property},
                             {"holds", v.holds},
                             {"summary", v.summary},
                             {"checked", v.checked},
                             {"figures", figures},
                             {"worst", worst}});
  }
  j["fitted_c"] = hex(s.fitted_c);
  j["rotary"] = to_json(s.rotary);
  j["rotary_ulp_floored"] = hex(s.rotary_ulp_floored);
  j["first_failure"] = s.first_failure;
  j["last_measured"] = s.last_measured ? json(*s.last_measured) : json(nullptr);
  return j;
}

ShardResult from_json(const json& j) {
  ShardResult s;
  for (const json& b : j.at("bands")) {
    Band band;
    band.first = b.at(0).get<uint64_t>();
    band.last = b.at(1).get<uint64_t>();
    band.figures = figures_from_json(b.at(2));
    band.max_ulp_floored = unhex(b.at(3));
    s.bands.push_back(band);
  }
  for (const json& c : j.at("curve")) s.curve[c.at(0).get<int>()] = unhex(c.at(1));
  for (const json& v : j.at("verdicts")) {
    properties::PropertyVerdict verdict;
    verdict.property = v.at("property").get<std::string>();
    verdict.holds = v.at("holds").get<bool>();
    verdict.summary = v.at("summary").get<std::string>();
    verdict.checked = v.at("checked").get<uint64_t>();
    for (const auto& [name, x] : v.at("figures").items()) verdict.figures[name] = unhex(x);
    for (const json& f : v.at("worst"))
      verdict.worst.push_back({f.at(0).get<uint64_t>(), f.at(1).get<int>(), unhex(f.at(2)),
                               unhex(f.at(3)), unhex(f.at(4)), unhex(f.at(5)), unhex(f.at(6)),
                               f.at(7).get<std::string>()});
    s.verdicts.push_back(verdict);
  }
  s.fitted_c = unhex(j.at("fitted_c"));
  s.rotary = figures_from_json(j.at("rotary"));
  s.rotary_ulp_floored = unhex(j.at("rotary_ulp_floored"));
  s.first_failure = j.at("first_failure").get<std::map<std::string, uint64_t>>();
  if (!j.at("last_measured").is_null()) s.last_measured = j.at("last_measured").get<uint64_t>();
  return s;
}

// A shard file's result, or nothing when the file is absent, torn or from another study.
std::optional<ShardResult> read_shard(const std::string& dir, const ShardId& shard,
                                      const std::string& fingerprint) {
  std::ifstream in(shard_path(dir, shard));
  if (!in) return std::nullopt;
  try {
    const json j = json::parse(in);
    if (j.at("study").get<std::string>() != fingerprint) return std::nullopt;
    if (j.at("shard").get<std::string>() != shard.key()) return std::nullopt;
    return from_json(j.at("result"));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string study_fingerprint(const StudyPlan& plan) {
  std::string text = config_json(plan.config()).dump();
  text += "\nshard format " + std::to_string(kShardFormat);
  for (const core::Implementation* impl : plan.impls()) text += "\n" + std::string(impl->name);
  text += "\nshards " + std::to_string(plan.shards().size());
  // FNV-1a: stable across builds and machines, unlike std::hash.
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

namespace {

// The sweep's record (sweep.json): a new one, or the check that the one there is this study's.
void record_sweep(const StudyPlan& plan, const std::string& dir) {
  const std::string fingerprint = study_fingerprint(plan);
  const std::string path = dir + "/sweep.json";
  if (std::ifstream in(path); in) {
    json j;
    try {
      j = json::parse(in);
    } catch (const json::exception&) {
      throw FileError(path + " is not a sweep record; use an empty directory");
    }
    if (j.value("study", "") != fingerprint)
      throw FileError(dir + " holds the sweep of a different study; use another --out");
    return;
  }
  const json record = {{"study", fingerprint},
                       {"config", config_json(plan.config())},
                       {"shards", plan.shards().size()}};
  write_file_atomically(path, [&](std::ostream& out) { out << record.dump(2) << "\n"; });
}

}  // namespace

void open_sweep_dir(const StudyPlan& plan, const std::string& dir) {
  // The directories this run makes go again if it cannot record the sweep in them: a sweep
  // that fails before its record (a full disk) leaves nothing behind (support/file_set.h).
  const std::vector<std::string> made = make_directories(dir + "/shards");
  try {
    record_sweep(plan, dir);
  } catch (...) {
    remove_if_empty(made);
    throw;
  }
  keep_directories(made);  // a recorded sweep is resumable, interrupted or not
}

std::string shard_path(const std::string& dir, const ShardId& shard) {
  return dir + "/shards/" + shard.key() + ".json";
}

std::vector<size_t> missing_shards(const StudyPlan& plan, const std::string& dir) {
  const std::string fingerprint = study_fingerprint(plan);
  std::vector<size_t> missing;
  for (size_t i = 0; i < plan.shards().size(); ++i)
    if (!read_shard(dir, plan.shards()[i], fingerprint)) missing.push_back(i);
  return missing;
}

void compute_shard(const StudyPlan& plan, const std::string& dir, size_t index, int threads) {
  const ShardId& shard = plan.shards().at(index);
  const ShardResult result = plan.run(shard, threads);
  const json j = {{"study", study_fingerprint(plan)},
                  {"shard", shard.key()},
                  {"implementation", plan.impls()[shard.entry]->name},
                  {"result", to_json(result)}};
  write_file_atomically(shard_path(dir, shard),
                        [&](std::ostream& out) { out << j.dump() << "\n"; });
}

void run_shards(const StudyPlan& plan, const std::string& dir, const std::vector<size_t>& shards,
                int threads, const std::function<void(size_t)>& progress) {
  std::atomic<size_t> done{0};
  std::mutex mutex;
  parallel_for(shards.size(), threads, [&](uint64_t i) {
    compute_shard(plan, dir, shards[i], threads);
    std::lock_guard lock(mutex);
    progress(++done);
  });
}

StudyResult merge_sweep(const StudyPlan& plan, const std::string& dir,
                        const std::function<void(const std::string&, double)>& progress) {
  const std::string fingerprint = study_fingerprint(plan);
  std::vector<ShardResult> results;
  results.reserve(plan.shards().size());
  for (const ShardId& shard : plan.shards()) {
    std::optional<ShardResult> r = read_shard(dir, shard, fingerprint);
    if (!r) throw FileError(shard_path(dir, shard) + " is missing or damaged; rerun the sweep");
    results.push_back(std::move(*r));
  }
  StudyResult result;
  result.config = plan.config();
  result.entries = plan.merge(results);
  finish_study(result, plan.impls().size(), progress);
  return result;
}

}  // namespace pev::reports::study
