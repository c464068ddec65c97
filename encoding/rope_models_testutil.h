// The rotary caches of real models that the registry's tests build (docs/mathematics.md §12): Llama
// 3.1, Qwen2.5 and DeepSeek-V3 from the repository's configs (models/*.json, read from the
// repository root, where the tests run), and one model of each other recipe with the parameters
// real configs use. Shared by core/'s, crosscheck/'s and gate/'s tests, so it sits in encoding/,
// the lowest room all three see, beside the model configs it reads.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "peverify/encoding/model_config.h"

namespace pev::models {

struct RopeModel {
  std::string name;
  ModelRope model;
};

inline ModelRope read_model_config(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return model_rope_from_config(text.str());
}

// Llama 3.1 (llama3: head 128, base 5e5, 8/1/4/8192), Qwen2.5 (yarn: head 128, base 1e6, factor
// 4, L0 32768) and DeepSeek-V3 (yarn: rope head 64, base 1e4, factor 40, L0 4096, mscale =
// mscale_all_dim = 1).
inline std::vector<RopeModel> real_rope_models() {
  return {{"llama3.1", read_model_config("models/llama-3.1-8b.json")},
          {"qwen2.5_yarn", read_model_config("models/qwen2.5-7b-yarn.json")},
          {"deepseek_v3_yarn", read_model_config("models/deepseek-v3.json")}};
}

// The other recipes: linear x4 (CodeLlama-style, head 128), dynamic NTK x2 over 4096 positions
// (Llama 2 head), and a Phi-3-128k-style LongRoPE (head 96, L0 4096, 131072 positions; factor
// lists rising with the pair, as Phi-3's do).
inline std::vector<RopeModel> other_rope_models() {
  ModelRope linear;
  linear.head_dim = linear.rotary_dim = 128;
  linear.base = 1e4;
  linear.rope.type = RopeType::kLinear;
  linear.rope.factor = 4;
  ModelRope dynamic = linear;
  dynamic.max_position = 4096;
  dynamic.rope.type = RopeType::kDynamic;
  dynamic.rope.factor = 2;
  dynamic.rope.max_position = 4096;
  ModelRope longrope;
  longrope.head_dim = longrope.rotary_dim = 96;
  longrope.base = 1e4;
  longrope.max_position = 131072;
  longrope.rope.type = RopeType::kLongRope;
  longrope.rope.original_max_position = 4096;
  longrope.rope.max_position = 131072;
  for (int j = 0; j < 48; ++j) {
    longrope.rope.short_factor.push_back(1.0 + 0.05 * j);
    longrope.rope.long_factor.push_back(1.0 + 1.25 * j);
  }
  return {{"linear4", linear}, {"dynamic2", dynamic}, {"phi3_longrope", longrope}};
}

inline std::vector<RopeModel> every_rope_model() {
  std::vector<RopeModel> all = real_rope_models();
  for (RopeModel& m : other_rope_models()) all.push_back(m);
  return all;
}

}  // namespace pev::models
