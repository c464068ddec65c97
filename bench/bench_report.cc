#include "peverify/bench/bench_report.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <tuple>

#include "peverify/bench/engine_benchmark.h"
#include "peverify/bench/roofline.h"
#include "peverify/core/convert.h"
#include "peverify/core/highway/highway_dispatch.h"
#include "peverify/core/sleef/sleef_dispatch.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"
#include "peverify/support/parallel.h"

namespace pev::bench {
namespace {

// Collects every repetition's time per iteration, by benchmark name.
class Collector : public benchmark::BenchmarkReporter {
 public:
  explicit Collector(const std::function<void(const std::string&)>& progress)
      : progress_(progress) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration) continue;
      if (r.error_occurred) {
        progress_(r.run_name.function_name + ": error: " + r.error_message);
        continue;
      }
      seconds_[r.run_name.function_name].push_back(r.real_accumulated_time /
                                                   static_cast<double>(r.iterations));
      if (r.repetition_index + 1 == r.repetitions || r.repetitions <= 1)
        progress_(r.run_name.function_name);
    }
  }
  const std::map<std::string, std::vector<double>>& seconds() const { return seconds_; }

 private:
  std::function<void(const std::string&)> progress_;
  std::map<std::string, std::vector<double>> seconds_;
};

// amount / time for each repetition, reduced to median and range.
Spread rate(double amount, const std::vector<double>& seconds) {
  std::vector<double> r;
  for (double s : seconds) r.push_back(amount / s);
  return spread_of(std::move(r));
}

}  // namespace

Machine describe_machine() {
  Machine m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      m.cpu = line.substr(line.find(':') + 2);
      break;
    }
  m.threads = resolve_threads(0);
  m.dispatch = {{"sleef", std::string(core::sleef_isa())},
                {"highway", std::string(core::highway_target())},
                {"conversions", std::string(core::convert_target())}};
  return m;
}

Report summarize(const std::map<std::string, Measured>& measured,
                 const std::map<std::string, std::vector<double>>& seconds) {
  Report report;
  using Key = std::tuple<std::string, int, int, int>;  // table, threads, element bytes, columns
  std::map<Key, size_t> roofline_of;
  for (const auto& [name, m] : measured) {
    if (!m.roofline) continue;
    const Key key{m.table, m.threads, m.element_bytes, m.columns};
    if (!roofline_of.count(key)) {
      roofline_of[key] = report.rooflines.size();
      report.rooflines.push_back(
          {m.table, m.threads, m.element_bytes, m.columns, m.bytes, "", {}, {}, {}});
    }
    Roofline& r = report.rooflines[roofline_of[key]];
    const auto it = seconds.find(name);
    if (it == seconds.end()) continue;
    const Spread f = rate(static_cast<double>(m.bytes), it->second);
    if (m.impl == "memcpy") {
      r.memcpy_bytes_per_s = f;
      continue;
    }
    r.fills.emplace_back(m.impl, f);
    if (is_store_fill(m.impl) && f.median > r.bytes_per_s.median) {
      r.bytes_per_s = f;
      r.best = m.impl;
    }
  }
  for (const auto& [name, m] : measured) {
    if (m.roofline) continue;
    const auto it = seconds.find(name);
    if (it == seconds.end()) continue;
    Result res;
    res.impl = m.impl;
    res.table = m.table;
    res.layout = m.layout;
    res.columns = m.columns;
    res.d_model = m.d_model;
    res.positions = m.positions;
    res.threads = m.threads;
    res.element_bytes = m.element_bytes;
    res.values_per_s = rate(static_cast<double>(m.values), it->second);
    res.bytes_per_s = rate(static_cast<double>(m.bytes), it->second);
    const auto r = roofline_of.find(Key{m.table, m.threads, m.element_bytes, m.columns});
    if (r != roofline_of.end()) {
      const Roofline& roofline = report.rooflines[r->second];
      res.roofline_bytes_per_s = roofline.bytes_per_s.median;
      if (roofline.bytes == m.bytes && res.roofline_bytes_per_s > 0)
        res.roofline_ratio = res.bytes_per_s.median / res.roofline_bytes_per_s;
    }
    report.results.push_back(res);
  }
  return report;
}

Report run(const Config& config, const std::function<void(const std::string&)>& progress) {
  int argc = 1;
  char arg0[] = "peverify-bench";
  char* argv[] = {arg0, nullptr};
  benchmark::Initialize(&argc, argv);
  const std::map<std::string, Measured> measured = register_table_benchmarks(config);
  Collector collector(progress);
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::ClearRegisteredBenchmarks();
  Report report = summarize(measured, collector.seconds());
  report.machine = describe_machine();
  return report;
}

OracleThroughput measure_oracle(double seconds) {
  TableSpec spec;
  spec.d_model = 512;
  spec.start = 1000000;
  // Both engines on the same cases in the same run, one thread each.
  const EngineComparison c = compare_engines(spec, Dtype::kFloat32, 1024, seconds);
  OracleThroughput o;
  o.values_per_s = {{"mpfr", c.mpfr_values_per_s}, {"fast", c.fast_values_per_s}};
  o.speedup = c.speedup;
  o.handoff_rate = c.handoff_rate;
  return o;
}

nlohmann::json to_json(const Report& report) {
  nlohmann::json j;
  nlohmann::json dispatch = nlohmann::json::object();
  for (const auto& [module, isa] : report.machine.dispatch) dispatch[module] = isa;
  j["machine"] = {
      {"cpu", report.machine.cpu}, {"threads", report.machine.threads}, {"dispatch", dispatch}};
  j["roofline"] = nlohmann::json::array();
  for (const Roofline& r : report.rooflines) {
    nlohmann::json fills = nlohmann::json::object();
    for (const auto& [kind, f] : r.fills) fills[kind] = to_json(f);
    j["roofline"].push_back({{"table", r.table},
                             {"threads", r.threads},
                             {"element_bytes", r.element_bytes},
                             {"columns", r.columns},
                             {"bytes", r.bytes},
                             {"best", r.best},
                             {"bytes_per_s", to_json(r.bytes_per_s)},
                             {"memcpy_bytes_per_s", to_json(r.memcpy_bytes_per_s)},
                             {"fills", fills}});
  }
  j["results"] = nlohmann::json::array();
  for (const Result& r : report.results)
    j["results"].push_back({{"impl", r.impl},
                            {"table", r.table},
                            {"layout", r.layout},
                            {"d_model", r.d_model},
                            {"positions", r.positions},
                            {"threads", r.threads},
                            {"element_bytes", r.element_bytes},
                            {"values_per_s", r.values_per_s.median},
                            {"bytes_per_s", r.bytes_per_s.median},
                            {"roofline_bytes_per_s", r.roofline_bytes_per_s},
                            {"roofline_ratio", r.roofline_ratio},
                            {"spread", {{"values_per_s", to_json(r.values_per_s)}}}});
  if (report.oracle) {
    nlohmann::json engines = nlohmann::json::object();
    for (const auto& [name, v] : report.oracle->values_per_s) engines[name] = {{"values_per_s", v}};
    j["oracle"] = {{"engines", engines}};
    if (report.oracle->speedup) j["oracle"]["speedup"] = *report.oracle->speedup;
    if (report.oracle->handoff_rate) j["oracle"]["handoff_rate"] = *report.oracle->handoff_rate;
  }
  return j;
}

}  // namespace pev::bench
