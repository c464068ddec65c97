#include "peverify/bench/table_benchmarks.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <regex>
#include <set>
#include <thread>

#include "peverify/bench/roofline.h"
#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/core/row_writer.h"
#include "peverify/support/parallel.h"

namespace pev::bench {
namespace {

// One buffer per table case, as large as the widest output timed on it needs, touched once up
// front so that no benchmark pays the page faults. Narrower outputs and their rooflines use its
// first bytes.
struct Buffer {
  size_t bytes;
  std::unique_ptr<char, decltype(&std::free)> data{nullptr, &std::free};
  std::unique_ptr<char, decltype(&std::free)> source{nullptr, &std::free};
  explicit Buffer(size_t n) : bytes(n) {
    data.reset(static_cast<char*>(std::aligned_alloc(64, n)));
    std::memset(data.get(), 1, n);
  }
  const char* memcpy_source() {
    if (!source) {
      source.reset(static_cast<char*>(std::aligned_alloc(64, bytes)));
      std::memset(source.get(), 2, bytes);
    }
    return source.get();
  }
};

std::map<std::string, std::shared_ptr<Buffer>>& buffers() {
  static std::map<std::string, std::shared_ptr<Buffer>> b;
  return b;
}

// Splits [0, bytes) into `threads` 64-byte aligned parts and runs body on each.
template <typename F>
void split(size_t bytes, int threads, F body) {
  const size_t part = (bytes / threads) & ~size_t{63};
  parallel_for(static_cast<uint64_t>(threads), threads, [&](uint64_t t) {
    const size_t begin = t * part;
    const size_t end = t + 1 == static_cast<uint64_t>(threads) ? bytes : begin + part;
    body(begin, end - begin);
  });
}

std::string threads_suffix(int threads) { return "/threads:" + std::to_string(threads); }

// The CPU entries the config selects, available on this machine.
std::vector<const core::Implementation*> selected(const Config& config) {
  const std::regex filter(config.filter.empty() ? ".*" : config.filter);
  std::vector<const core::Implementation*> out;
  for (const core::Implementation& impl : core::registry()) {
    if (impl.device != core::Device::kCpu) continue;
    if (impl.available && !impl.available()) continue;
    if (!std::regex_search(impl.name, filter)) continue;
    out.push_back(&impl);
  }
  return out;
}

// The table an entry fills for a table case in a layout.
TableSpec spec_of(const TableCase& tc, Layout layout) {
  TableSpec spec;
  spec.d_model = tc.d_model;
  spec.layout = layout;
  return spec;
}

int element_bytes_of(const core::Implementation& impl) {
  return static_cast<int>(core::element_size(impl.output));
}

// What a benchmark writing `columns` values of `element_bytes` per row of the table case measures.
Measured measured_of(const TableCase& tc, std::string impl, bool roofline, int threads,
                     int element_bytes, int columns, std::string layout) {
  const uint64_t values = tc.positions * static_cast<uint64_t>(columns);
  return {std::move(impl),        roofline,          tc.label,      tc.d_model,
          tc.positions,           threads,           element_bytes, values,
          values * element_bytes, std::move(layout), columns};
}

// Every benchmark here: wall-clock time (the work runs on threads of its own), repeated so that
// the figures can be medians.
void time_as_configured(benchmark::internal::Benchmark* b, const Config& config) {
  b->UseRealTime()->Repetitions(config.repetitions)->MinTime(config.min_time);
}

// (columns per row, bytes per value), largest first.
using Shapes = std::set<std::pair<int, int>, std::greater<>>;

// The shapes the selected entries write on a table case; float32's full rows when none is
// selected.
Shapes shapes_written(const std::vector<const core::Implementation*>& impls, const TableCase& tc,
                      const std::vector<Layout>& layouts) {
  Shapes shapes;
  for (const core::Implementation* impl : impls)
    for (const Layout layout : layouts)
      shapes.emplace(table_width(spec_of(tc, layout)), element_bytes_of(*impl));
  if (shapes.empty()) shapes.emplace(tc.d_model, 4);
  return shapes;
}

// The table case's buffer, large enough for its largest shape (shared by every Config that
// registers the same case and size).
std::shared_ptr<Buffer> buffer_for(const TableCase& tc, const Shapes& shapes) {
  size_t largest = 0;
  for (const auto& [columns, element_bytes] : shapes)
    largest = std::max(largest, tc.positions * columns * static_cast<size_t>(element_bytes));
  auto& buffer = buffers()[tc.label + "/" + std::to_string(largest)];
  if (!buffer) buffer = std::make_shared<Buffer>(largest);
  return buffer;
}

// What registering the benchmarks of one table case needs.
struct CaseRegistry {
  const Config& config;
  const TableCase& tc;
  std::shared_ptr<Buffer> buffer;
  std::map<std::string, Measured>& measured;
};

// The store fills the roofline is the best of, and memcpy, each writing exactly the bytes of one
// shape.
void register_rooflines(const CaseRegistry& r, int columns, int element_bytes, int threads) {
  const std::string shape = (columns == r.tc.d_model ? "" : std::to_string(columns) + "cols/") +
                            std::to_string(element_bytes) + "B";
  std::vector<Fill> fills(std::begin(kStoreFills), std::end(kStoreFills));
  fills.push_back(Fill::kMemcpy);
  const size_t row_bytes = static_cast<size_t>(columns) * element_bytes;
  if (row_bytes % 64 == 0) fills.insert(fills.end(), std::begin(kRunFills), std::end(kRunFills));
  for (const Fill f : fills) {
    const std::string name = "roofline/" + std::string(name_of(f)) + "/" + r.tc.label + "/" +
                             shape + threads_suffix(threads);
    const Measured m =
        measured_of(r.tc, std::string(name_of(f)), true, threads, element_bytes, columns, "");
    const size_t bytes = m.bytes;
    time_as_configured(benchmark::RegisterBenchmark(
                           name.c_str(),
                           [buf = r.buffer, f, threads, bytes, row_bytes](benchmark::State& state) {
                             const char* src = f == Fill::kMemcpy ? buf->memcpy_source() : nullptr;
                             for (auto _ : state)
                               split(bytes, threads, [&](size_t at, size_t n) {
                                 fill(f, buf->data.get() + at, src ? src + at : nullptr, n,
                                      row_bytes);
                               });
                             benchmark::ClobberMemory();
                           }),
                       r.config);
    r.measured[name] = m;
  }
}

// One registry entry filling the table case in one layout.
void register_entry(const CaseRegistry& r, const core::Implementation& impl, Layout layout,
                    int threads) {
  const TableSpec spec = spec_of(r.tc, layout);
  std::string name = impl.name + "/" + r.tc.label;
  if (layout != Layout::kInterleaved) {  // the default layout's names carry none
    name += '/';
    name += pev::name_of(layout);
  }
  name += threads_suffix(threads);
  time_as_configured(
      benchmark::RegisterBenchmark(name.c_str(),
                                   [buf = r.buffer, p = &impl, spec, count = r.tc.positions,
                                    threads](benchmark::State& state) {
                                     for (auto _ : state)
                                       core::fill_rows(*p, spec, count, buf->data.get(), threads);
                                     benchmark::ClobberMemory();
                                   }),
      r.config);
  r.measured[name] = measured_of(r.tc, impl.name, false, threads, element_bytes_of(impl),
                                 table_width(spec), std::string(pev::name_of(layout)));
}

}  // namespace

std::optional<TableCase> parse_table_case(std::string_view text) {
  const size_t x = text.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  uint64_t positions = 0;
  int d = 0;
  const char* end = text.data() + text.size();
  const auto p = std::from_chars(text.data(), text.data() + x, positions);
  const auto q = std::from_chars(text.data() + x + 1, end, d);
  if (p.ec != std::errc() || p.ptr != text.data() + x || q.ec != std::errc() || q.ptr != end)
    return std::nullopt;
  if (positions == 0 || d < 2 || d % 2 != 0) return std::nullopt;
  return TableCase{std::string(text), d, positions};
}

std::vector<TableCase> table_cases(bool quick) {
  std::vector<TableCase> c = {{"8192x512", 512, 8192}};
  // 256 MiB of float32: far beyond any last-level cache these machines have.
  if (!quick) c.push_back({"131072x512", 512, 131072});
  return c;
}

std::vector<int> thread_counts(bool quick) {
  const int all = resolve_threads(0);
  if (quick || all == 1) return {1};
  return {1, all};
}

std::map<std::string, Measured> register_table_benchmarks(const Config& config) {
  std::map<std::string, Measured> measured;
  const std::vector<const core::Implementation*> impls = selected(config);
  const std::vector<TableCase> cases =
      config.tables.empty() ? table_cases(config.quick) : config.tables;
  for (const TableCase& tc : cases) {
    const Shapes shapes = shapes_written(impls, tc, config.layouts);
    const CaseRegistry registry{config, tc, buffer_for(tc, shapes), measured};
    for (const int threads : thread_counts(config.quick)) {
      // Rooflines first, so that each group of results reads baseline then candidates.
      for (const auto& [columns, element_bytes] : shapes)
        register_rooflines(registry, columns, element_bytes, threads);
      for (const core::Implementation* impl : impls)
        for (const Layout layout : config.layouts) register_entry(registry, *impl, layout, threads);
    }
  }
  return measured;
}

}  // namespace pev::bench
