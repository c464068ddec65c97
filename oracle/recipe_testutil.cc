#include "peverify/oracle/recipe_testutil.h"

#include <fmt/format.h>

#include <cmath>

namespace pev::oracle::recipes {
namespace {

TableSpec rotary(int d, double base, RopeType type) {
  TableSpec spec;
  spec.d_model = d;
  spec.base = base;
  spec.layout = Layout::kRopeCosSin;
  spec.rope.type = type;
  return spec;
}

double uniform(TestRng& rng, double lo, double hi) { return lo + (hi - lo) * rng.unit(); }

}  // namespace

TableSpec llama31() {
  TableSpec spec = rotary(128, 5e5, RopeType::kLlama3);
  spec.rope.factor = 8;
  spec.rope.low_freq_factor = 1;
  spec.rope.high_freq_factor = 4;
  spec.rope.original_max_position = 8192;
  return spec;
}

TableSpec qwen25_yarn() {
  TableSpec spec = rotary(128, 1e6, RopeType::kYarn);
  spec.rope.factor = 4;
  spec.rope.original_max_position = 32768;
  return spec;
}

TableSpec deepseek_v3(double mscale, double mscale_all_dim) {
  TableSpec spec = rotary(64, 1e4, RopeType::kYarn);
  spec.rope.factor = 40;
  spec.rope.original_max_position = 4096;
  spec.rope.mscale = mscale;
  spec.rope.mscale_all_dim = mscale_all_dim;
  return spec;
}

TableSpec phi3_longrope(uint64_t sequence_length, uint64_t seed) {
  TestRng rng(seed);
  TableSpec spec = rotary(96, 1e4, RopeType::kLongRope);
  spec.rope.original_max_position = 4096;
  spec.rope.max_position = 131072;
  spec.rope.sequence_length = sequence_length;
  for (int j = 0; j < 48; ++j) {
    spec.rope.short_factor.push_back(uniform(rng, 1.0, 1.2) + j * 0.01);
    spec.rope.long_factor.push_back(1.0 + std::pow(j / 47.0, 2) * uniform(rng, 40, 60));
  }
  return spec;
}

std::vector<TableSpec> random_recipes(uint64_t seed, int count) {
  TestRng rng(seed);
  std::vector<TableSpec> out;
  for (int i = 0; i < count; ++i) {
    TableSpec spec;
    switch (i % 7) {
      case 0: {
        spec = rotary(rng.below(2) ? 64 : 128, rng.below(2) ? 1e4 : 5e5, RopeType::kLinear);
        spec.rope.factor =
            rng.below(2) ? static_cast<double>(2 + rng.below(7)) : uniform(rng, 1, 8);
        break;
      }
      case 1: {
        spec = rotary(rng.below(2) ? 64 : 128, rng.below(2) ? 1e4 : 1e6, RopeType::kDynamic);
        spec.rope.factor = uniform(rng, 1, 8);
        spec.rope.max_position = rng.below(2) ? 2048 : 4096;
        // Below L (base unchanged) or past it (rescaled).
        spec.rope.sequence_length = rng.below(4) ? spec.rope.max_position + 1 + rng.below(1 << 20)
                                                 : 1 + rng.below(spec.rope.max_position);
        break;
      }
      case 2:
      case 3: {  // Qwen-like
        spec = qwen25_yarn();
        if (rng.below(2)) spec.base = rng.below(2) ? 1e4 : 5e5;
        spec.rope.factor = uniform(rng, 1.5, 8);
        spec.rope.original_max_position = 1024 << rng.below(6);
        spec.rope.truncate = rng.below(5) != 0;
        if (rng.below(3) == 0) {
          spec.rope.beta_fast = uniform(rng, 8, 64);
          spec.rope.beta_slow = uniform(rng, 0.5, 2);
        }
        if (rng.below(4) == 0) spec.rope.attention_factor = uniform(rng, 0.5, 2);
        break;
      }
      case 4: {  // DeepSeek-like
        const uint64_t variant = rng.below(3);
        spec = variant == 0   ? deepseek_v3(1, 1)
               : variant == 1 ? deepseek_v3(0.707, 1)
                              : deepseek_v3(uniform(rng, 0.5, 1.5), uniform(rng, 0.5, 1.5));
        spec.rope.factor = rng.below(2) ? 40 : uniform(rng, 2, 64);
        spec.rope.truncate = rng.below(4) != 0;
        break;
      }
      case 5: {
        spec = phi3_longrope(rng.below(2) ? 2048 + rng.below(2048) : 4097 + rng.below(1 << 17),
                             rng.below(1 << 30));
        if (rng.below(4) == 0) spec.rope.attention_factor = 1.190238;
        if (rng.below(4) == 0) spec.rope.max_position = 4096 * (1 + rng.below(64));
        break;
      }
      default: {  // Llama-3-like
        spec = llama31();
        if (rng.below(2)) {
          spec.rope.factor = uniform(rng, 2, 64);
          spec.rope.low_freq_factor = uniform(rng, 0.5, 2);
          spec.rope.high_freq_factor = spec.rope.low_freq_factor + uniform(rng, 0.5, 8);
          spec.rope.original_max_position = 1024 << rng.below(6);
        }
        break;
      }
    }
    out.push_back(spec);
  }
  return out;
}

uint64_t position_in(TestRng& rng, int region) {
  constexpr uint64_t k20 = uint64_t{1} << 20, k40 = uint64_t{1} << 40;
  switch (region) {
    case 0:
      return rng.below(4097);
    case 1:
      return k20 - 4096 + rng.below(8193);
    case 2:
      return static_cast<uint64_t>(std::exp2(20.0 + 20.0 * rng.unit()));
    default:
      return k40 - rng.below(k20);
  }
}

std::string describe_recipe(const TableSpec& spec) {
  const RopeScaling& r = spec.rope;
  return fmt::format(
      "d={} base={:a} {} (factor {:a}, L0 {}, L {}, n {}, beta {:a}/{:a}, truncate {}, "
      "mscale {:a}/{:a}, attention {}, low/high {:a}/{:a})",
      spec.d_model, spec.base, describe(r), r.factor, r.original_max_position, r.max_position,
      r.sequence_length, r.beta_fast, r.beta_slow, r.truncate, r.mscale.value_or(0.0),
      r.mscale_all_dim.value_or(0.0),
      r.attention_factor ? fmt::format("{:a}", *r.attention_factor) : "-", r.low_freq_factor,
      r.high_freq_factor);
}

}  // namespace pev::oracle::recipes
