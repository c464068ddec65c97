// Every CPU registry entry beside the store roofline of the same buffer, in one run:
//   build/bin/registry_benchmark [--quick] [Google Benchmark flags]
// `peverify bench --json FILE` runs the same benchmarks and adds medians and roofline ratios.
#include <benchmark/benchmark.h>

#include <cstring>

#include "peverify/bench/table_benchmarks.h"

int main(int argc, char** argv) {
  pev::bench::Config config;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--quick") == 0) config.quick = true;
  config.repetitions = 1;
  pev::bench::register_table_benchmarks(config);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
