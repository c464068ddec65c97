// Rotary recipes for the oracle's tests: the real models of docs/mathematics.md §12.1 and random
// recipes around them, and positions in the four regions that matter. Deterministic for a seed on
// every platform (TestRng, no std:: distributions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "peverify/encoding/spec.h"
#include "peverify/oracle/test_rng.h"

namespace pev::oracle::recipes {

// Llama 3.1: llama3, s 8, low 1, high 4, L0 8192, base 5e5, d 128.
TableSpec llama31();
// Qwen2.5: yarn, s 4, L0 32768, base 1e6, d 128 (attention g(4, 1) = 1.138629).
TableSpec qwen25_yarn();
// DeepSeek-V3: yarn, s 40, L0 4096, base 1e4, d 64, mscale = mscale_all_dim = `mscale_all_dim`,
// mscale `mscale` (1, 1: attention exactly 1).
TableSpec deepseek_v3(double mscale, double mscale_all_dim);
// Phi-3 128k-like LongRoPE: L0 4096, L 131072 (attention 1.190238), d 96, seq_len chooses the list;
// the factor lists are random but shaped like the model's (short near 1, long growing to ~50).
TableSpec phi3_longrope(uint64_t sequence_length, uint64_t seed);

// Random recipes around those models, cycling through linear, dynamic, yarn (truncated or not,
// with and without mscale and attention_factor), longrope and llama3.
std::vector<TableSpec> random_recipes(uint64_t seed, int count);

// region 0: [0, 4096]; 1: within 4096 of 2^20; 2: log-uniform in (2^20, 2^40); 3: within 2^20
// below 2^40.
uint64_t position_in(TestRng& rng, int region);
inline constexpr int kPositionRegions = 4;

// The recipe in a few words plus its numbers, for failure messages.
std::string describe_recipe(const TableSpec& spec);

}  // namespace pev::oracle::recipes
