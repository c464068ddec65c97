#include "peverify/reports/measured/measure_cuda.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "peverify/core/cuda/device_model.h"
#include "peverify/core/cuda/device_timing.h"
#include "peverify/core/cuda/modelled_bounds.h"
#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/core/rotation/rotation_registry.h"
#include "peverify/core/row_writer.h"
#include "peverify/oracle/table.h"
#include "peverify/reports/measured/measured_results.h"
#include "peverify/reports/study/report_json.h"
#include "peverify/reports/study/study.h"
#include "peverify/support/parallel.h"
#include "peverify/support/spread.h"

namespace pev::reports::measured {
namespace {

using nlohmann::json;

// The host model's two grids (core/cuda/modelled_bounds.h): d 512, base 10^4, positions below
// 8192, and the 64 ending at 2^20; their exact values, computed once for every entry.
struct ModelGrids {
  TableSpec near = grid_spec(core::cuda::kRecordedDModel, 1e4), far = near;
  std::vector<double> near_exact, far_exact;
  explicit ModelGrids(int threads) {
    using namespace core::cuda;
    far.start = kRecordedFarLast - kRecordedFarRows + 1;
    near_exact = oracle::exact_values(near, kRecordedRows, threads);
    far_exact = oracle::exact_values(far, kRecordedFarRows, threads);
  }
};

// The device's error on one of the grids over the elements whose every device function has a
// documented bound (the model's max_abs covers those alone), and over all; beside the model's.
json model_check(const core::Implementation& e, const std::string& grid, const TableSpec& spec,
                 uint64_t rows, const std::vector<double>& all_exact) {
  const std::vector<double> exact(all_exact.begin(), all_exact.begin() + rows * table_width(spec));
  const core::GeneratedTable got = core::generate(e, spec, rows);
  const core::cuda::ModelTable where =
      core::cuda::model_table(e, spec, rows, core::cuda::Perturbation{true}, nullptr);
  const core::cuda::ModelledError model = core::cuda::modelled_error(e, spec, rows, exact);
  double documented = 0, all = 0;
  uint64_t unbounded = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::isnan(got.value(i)) ? INFINITY : std::fabs(got.value(i) - exact[i]);
    all = std::max(all, err);
    if (where.out_of_range[i])
      ++unbounded;
    else
      documented = std::max(documented, err);
  }
  return {{"grid", grid},
          {"d_model", spec.d_model},
          {"base", spec.base},
          {"first", spec.start},
          {"rows", rows},
          {"elements", got.size()},
          {"unbounded_elements", unbounded},
          {"measured_max_abs", documented},
          {"measured_max_abs_all", all},
          {"model_max_abs", model.max_abs}};
}

json model_checks(const core::Implementation& e, const ModelGrids& g) {
  using namespace core::cuda;
  json out = json::array();
  out.push_back(
      model_check(e, "near", g.near, std::min(kRecordedRows, e.max_position + 1), g.near_exact));
  if (e.max_position >= kRecordedFarLast)
    out.push_back(model_check(e, "far", g.far, kRecordedFarRows, g.far_exact));
  return out;
}

}  // namespace

std::optional<std::string> cannot_measure_here() {
  if (core::cuda::describe_device()) return std::nullopt;
  return "no CUDA device of compute capability 8.0 or newer here (or peverify was built without "
         "nvcc): measure-cuda runs on the GPU it measures";
}

json speed_figures(const std::vector<double>& seconds, double values, double bytes,
                   double roofline_bytes_per_s) {
  std::vector<double> values_per_s, bytes_per_s;
  for (const double s : seconds) {
    values_per_s.push_back(values / s);
    bytes_per_s.push_back(bytes / s);
  }
  const Spread b = spread_of(bytes_per_s);
  return {{"seconds", to_json(spread_of(seconds))},
          {"values_per_s", to_json(spread_of(values_per_s))},
          {"bytes_per_s", to_json(b)},
          {"bytes", bytes},
          {"repetitions", seconds.size()},
          {"roofline_ratio", b.median / roofline_bytes_per_s}};
}

namespace {

// The device store roofline over a buffer of the largest timed table: the faster of cudaMemset
// and a plain store kernel, in bytes/s (doc["roofline"]).
double measure_roofline(const MeasureOptions& o, json& doc) {
  const uint64_t table_bytes = o.table_rows * o.table_d * sizeof(float);
  const core::cuda::StoreTimes stores = core::cuda::time_device_stores(table_bytes, o.repetitions);
  const double memset_rate = stores.bytes / spread_of(stores.memset_seconds).median;
  const double kernel_rate = stores.bytes / spread_of(stores.kernel_seconds).median;
  const double roofline = std::max(memset_rate, kernel_rate);
  doc["roofline"] = {{"bytes", stores.bytes},
                     {"repetitions", o.repetitions},
                     {"memset_seconds", to_json(spread_of(stores.memset_seconds))},
                     {"store_kernel_seconds", to_json(spread_of(stores.kernel_seconds))},
                     {"memset_bytes_per_s", memset_rate},
                     {"store_kernel_bytes_per_s", kernel_rate},
                     {"bytes_per_s", roofline}};
  doc["table_shape"] = {{"rows", o.table_rows}, {"d_model", o.table_d}, {"base", 1e4}};
  return roofline;
}

// Each table entry: its report object from the study, its error beside its host model (entries
// in parallel: the host model is the slow part; the device serves each thread's small tables in
// turn), and its kernels timed beside the roofline.
json measure_entries(const MeasureOptions& o, const json& report, double roofline,
                     const std::function<void(const std::string&, double)>& progress) {
  const std::vector<const core::Implementation*> entries = study::select_implementations("^cuda/");
  progress("the host model's grids", 0.6);
  const ModelGrids grids(o.threads);
  std::vector<json> checks(entries.size());
  parallel_for(entries.size(), o.threads,
               [&](uint64_t k) { checks[k] = model_checks(*entries[k], grids); });
  json out = json::array();
  for (size_t k = 0; k < entries.size(); ++k) {
    const core::Implementation& e = *entries[k];
    progress(e.name, 0.7 + 0.2 * k / entries.size());
    json entry = {{"name", e.name}};
    for (const json& i : report["implementations"])
      if (i["name"] == e.name) entry["report"] = i;
    if (!entry.contains("report") || !entry["report"]["available"].get<bool>())
      throw std::runtime_error(e.name + ": the study did not run it on the device");
    entry["model_checks"] = checks[k];
    const TableSpec spec = grid_spec(o.table_d, 1e4);
    const double values = static_cast<double>(o.table_rows) * table_width(spec);
    entry["speed"] =
        speed_figures(core::cuda::time_table_kernels(e, spec, o.table_rows, o.repetitions), values,
                      values * core::element_size(e.output), roofline);
    out.push_back(entry);
  }
  return out;
}

// Each CUDA rotation on q of o.tokens x o.heads x o.head_dim, timed beside the roofline.
json measure_rotations(const MeasureOptions& o, double roofline,
                       const std::function<void(const std::string&, double)>& progress) {
  json out = json::array();
  for (const core::RotationImplementation& r : core::rotation_registry()) {
    if (r.name.rfind("cuda/", 0) != 0) continue;
    progress(r.name, 0.9);
    RotationSpec spec;
    spec.table = grid_spec(o.head_dim, 1e4);
    spec.head_dim = o.head_dim;
    spec.pairs = PairConvention::kHalves;
    const double elements = static_cast<double>(o.tokens) * o.heads * o.head_dim;
    // q read once and the output written once.
    const double bytes = 2 * elements * core::element_size(r.input);
    json rotation = {{"name", r.name},
                     {"tokens", o.tokens},
                     {"heads", o.heads},
                     {"head_dim", o.head_dim},
                     {"pairs", "halves"}};
    rotation.update(
        speed_figures(core::cuda::time_rotation_kernel(r, spec, o.tokens, o.heads, o.repetitions),
                      elements, bytes, roofline));
    out.push_back(rotation);
  }
  return out;
}

}  // namespace

json measure_cuda(const MeasureOptions& o,
                  const std::function<void(const std::string&, double)>& progress) {
  if (const auto why = cannot_measure_here()) throw std::runtime_error(*why);
  const auto device = core::cuda::describe_device();
  json doc = {
      {"format", kFormat},
      {"device",
       {{"name", device->name},
        {"compute_capability", fmt::format("{}.{}", device->compute_major, device->compute_minor)},
        {"driver", device->driver},
        {"runtime", device->runtime},
        {"memory_bytes", device->memory_bytes},
        {"multiprocessors", device->multiprocessors}}},
      {"commit", o.commit.empty() ? "unknown" : o.commit},
      {"command", o.command}};

  // The study of every CUDA entry, as `peverify report` runs it on a machine with this GPU.
  study::StudyConfig config;
  config.filter = "^cuda/";
  config.bench = false;  // timed below, on the device, beside the device's roofline
  config.threads = o.threads;
  const study::StudyResult study = study::run_study(
      config, [&](const std::string& step, double f) { progress("study: " + step, 0.6 * f); });
  const json report = to_json(study);
  doc["study"] = report["study"];  // what the figures are of: the report shows them under the same

  progress("the device store roofline", 0.6);
  const double roofline = measure_roofline(o, doc);
  doc["entries"] = measure_entries(o, report, roofline, progress);
  doc["rotations"] = measure_rotations(o, roofline, progress);
  doc["date"] = study::utc_timestamp();
  validate(doc, "the measurement");
  return doc;
}

}  // namespace pev::reports::measured
