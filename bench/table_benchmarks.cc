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
    // The shapes the selected entries write (columns per row, bytes per value), largest first;
    // float32's full rows when none is selected.
    std::set<std::pair<int, int>, std::greater<>> shapes;
    for (const core::Implementation* impl : impls)
      for (const Layout layout : config.layouts) {
        TableSpec spec;
        spec.d_model = tc.d_model;
        spec.layout = layout;
        shapes.emplace(table_width(spec), static_cast<int>(core::element_size(impl->output)));
      }
    if (shapes.empty()) shapes.emplace(tc.d_model, 4);
    size_t largest = 0;
    for (const auto& [columns, element_bytes] : shapes)
      largest = std::max(largest, tc.positions * columns * static_cast<size_t>(element_bytes));
    auto& buffer = buffers()[tc.label + "/" + std::to_string(largest)];
    if (!buffer) buffer = std::make_shared<Buffer>(largest);
    std::shared_ptr<Buffer> buf = buffer;
    for (const int threads : thread_counts(config.quick)) {
      // Rooflines first, so that each group of results reads baseline then candidates.
      for (const auto& [columns, element_bytes] : shapes) {
        const uint64_t values = tc.positions * static_cast<uint64_t>(columns);
        const size_t bytes = values * element_bytes;
        const std::string shape = (columns == tc.d_model ? "" : std::to_string(columns) + "cols/") +
                                  std::to_string(element_bytes) + "B";
        for (const Fill f :
             {Fill::kMemsetNonZero, Fill::kStreaming, Fill::kPlainLoop, Fill::kMemcpy}) {
          const std::string name = "roofline/" + std::string(name_of(f)) + "/" + tc.label + "/" +
                                   shape + threads_suffix(threads);
          benchmark::RegisterBenchmark(
              name.c_str(),
              [buf, f, threads, bytes](benchmark::State& state) {
                const char* src = f == Fill::kMemcpy ? buf->memcpy_source() : nullptr;
                for (auto _ : state)
                  split(bytes, threads, [&](size_t at, size_t n) {
                    fill(f, buf->data.get() + at, src ? src + at : nullptr, n);
                  });
                benchmark::ClobberMemory();
              })
              ->UseRealTime()
              ->Repetitions(config.repetitions)
              ->MinTime(config.min_time);
          measured[name] = {
              std::string(name_of(f)), true,   tc.label, tc.d_model, tc.positions, threads,
              element_bytes,           values, bytes,    "",         columns};
        }
      }
      for (const core::Implementation* p : impls) {
        for (const Layout layout : config.layouts) {
          TableSpec spec;
          spec.d_model = tc.d_model;
          spec.layout = layout;
          const uint64_t count = tc.positions;
          const std::string name =
              p->name + "/" + tc.label +
              (layout == Layout::kInterleaved ? std::string()
                                              : "/" + std::string(pev::name_of(layout))) +
              threads_suffix(threads);
          benchmark::RegisterBenchmark(name.c_str(),
                                       [buf, p, spec, count, threads](benchmark::State& state) {
                                         for (auto _ : state)
                                           core::fill_rows(*p, spec, count, buf->data.get(),
                                                           threads);
                                         benchmark::ClobberMemory();
                                       })
              ->UseRealTime()
              ->Repetitions(config.repetitions)
              ->MinTime(config.min_time);
          const int element_bytes = static_cast<int>(core::element_size(p->output));
          const int columns = table_width(spec);
          const uint64_t values = count * static_cast<uint64_t>(columns);
          measured[name] = {p->name,
                            false,
                            tc.label,
                            tc.d_model,
                            tc.positions,
                            threads,
                            element_bytes,
                            values,
                            values * element_bytes,
                            std::string(pev::name_of(layout)),
                            columns};
        }
      }
    }
  }
  return measured;
}

}  // namespace pev::bench
