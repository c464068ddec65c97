// Every CPU rotation entry (core/rotation) on the q of a prefill, beside the copy of the same
// bytes measured in the same run (a rotation reads q and writes its output: a copy is what memory
// allows it):
//   build/bin/rotation_benchmark [--tokens N] [Google Benchmark flags]
// q: N tokens (default 2048) x 32 heads x 128, float32 or bfloat16 as the entry reads, Llama 3.1's
// recipe, positions 0 .. N - 1; one thread (the entries are single-threaded). Each benchmark
// reports bytes_per_second over q and the output together, the figure the copy's is comparable to.
// CUDA rotations are not here: through `apply` they would time the host-device copies.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "peverify/bench/roofline.h"
#include "peverify/core/convert.h"
#include "peverify/core/rotation/rotation_registry.h"
#include "peverify/encoding/model_presets.h"

namespace {

using namespace pev;

constexpr int kHeads = 32, kHeadDim = 128;

struct Workload {
  RotationSpec spec;
  RowPositions positions;
  std::vector<uint64_t> tokens;
  std::vector<float> q32;
  std::vector<uint16_t> q16;
  size_t elements() const { return q32.size(); }
};

Workload make_workload(uint64_t n) {
  const ModelRope m = *model_preset("llama-3.1-8b");
  TableSpec t = grid_spec(m.rotary_dim, m.base);
  t.rope = m.rope;
  Workload w{{t, kHeadDim, PairConvention::kHalves}, consecutive_positions(t, n), {}, {}, {}};
  set_sequence_length(w.spec.table, w.positions);
  for (uint64_t i = 0; i < n; ++i) w.tokens.push_back(i);
  std::mt19937_64 rng(1);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  w.q32.resize(n * kHeads * kHeadDim);
  for (float& v : w.q32) v = normal(rng);
  for (float v : w.q32) w.q16.push_back(core::bf16_from_f32(v));
  return w;
}

void rotation(benchmark::State& state, const core::RotationImplementation* e, const Workload* w) {
  const bool narrow = e->input == Dtype::kBFloat16;
  const size_t esize = narrow ? 2 : 4, bytes = w->elements() * esize;
  std::vector<unsigned char> out(bytes);
  const void* in = narrow ? static_cast<const void*>(w->q16.data()) : w->q32.data();
  for (auto _ : state) {
    e->apply(*e, w->spec, w->positions, w->tokens.data(), w->tokens.size(), kHeads, in, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * bytes));
  state.SetLabel(e->compute + (e->claim == Claim::Kind::kFaithful ? ", faithful" : ""));
}

// The copy of q's bytes into the output: the roofline of a rotation that reads q once and writes
// its output once.
void copy_roofline(benchmark::State& state, size_t bytes) {
  std::vector<unsigned char> in(bytes, 0x3f), out(bytes);
  for (auto _ : state) {
    bench::fill(bench::Fill::kMemcpy, out.data(), in.data(), bytes);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * bytes));
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t tokens = 2048;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tokens") == 0 && i + 1 < argc) {
      tokens = std::strtoull(argv[++i], nullptr, 10);
      continue;
    }
    args.push_back(argv[i]);
  }
  if (tokens == 0) {
    std::fprintf(stderr, "rotation_benchmark: --tokens must be a whole number >= 1\n");
    return 2;
  }
  static const Workload w = make_workload(tokens);
  for (size_t esize : {4u, 2u})
    benchmark::RegisterBenchmark(("roofline/copy/" + std::to_string(esize * 8) + "bit").c_str(),
                                 copy_roofline, w.elements() * esize)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  for (const core::RotationImplementation& e : core::rotation_registry())
    if (e.name.rfind("cpu/", 0) == 0 && e.runs_here())
      benchmark::RegisterBenchmark(e.name.c_str(), rotation, &e, &w)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
