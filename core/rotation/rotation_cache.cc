// The rotations that multiply by a cos/sin cache, as Hugging Face's apply_rotary_pos_emb and
// vLLM's rotary_embedding do: the cache is the registry's own HF-style float32 entry, asked for
// the tokens' positions (core::generate_at), so its frequencies are the registry's, not re-derived.
#include <stdexcept>
#include <vector>

#include "peverify/core/generate.h"
#include "peverify/core/registry.h"
#include "peverify/core/rotation/rotate_heads.h"
#include "peverify/core/rotation/rotation_entries.h"

namespace pev::core::rotation_internal {
namespace {

// The cache entry: Hugging Face's float32 inv_freq (base ** (2j/d) in float32, the recipe's
// float32 tensor code) and SLEEF u10 sin and cos, as PyTorch's vectorised CPU kernels.
constexpr std::string_view kCacheEntry = "cpu/pow/f32>f32/sleef-u10";

}  // namespace

std::vector<float> float32_cache(const RotationSpec& spec, const RowPositions& positions,
                                 const uint64_t* tokens, uint64_t n) {
  const Implementation* impl = find_implementation(kCacheEntry);
  if (!impl) throw std::logic_error("the rotation cache entry is not in the registry");
  TableSpec table = spec.table;
  table.layout = Layout::kRopeCosSin;
  const RowPositions ids = token_ids(positions, tokens, n);
  GeneratedTable t = generate_at(*impl, table, ids);
  return std::move(t.floats);
}

namespace {

template <class T, class Io, class Arith, class Round>
void rotate_cached(const RotationSpec& spec, const RowPositions& positions, const uint64_t* tokens,
                   uint64_t n, int heads, const void* x, void* out, Round round_cache) {
  const int d = spec.table.d_model, pairs = d / 2;
  const std::vector<float> cache = float32_cache(spec, positions, tokens, n);
  std::vector<T> c(pairs), s(pairs);
  const uint64_t stride = static_cast<uint64_t>(heads) * static_cast<uint64_t>(spec.head_dim);
  for (uint64_t i = 0; i < n; ++i) {
    const float* row = &cache[i * static_cast<uint64_t>(d)];
    for (int j = 0; j < pairs; ++j) {
      c[j] = round_cache(row[j]);
      s[j] = round_cache(row[pairs + j]);
    }
    rotate_heads<T, Io, Io, Arith>(spec, c.data(), s.data(), x, out, i * stride, heads);
  }
}

}  // namespace

void apply_cache_f32(const RotationImplementation&, const RotationSpec& spec,
                     const RowPositions& positions, const uint64_t* tokens, uint64_t n, int heads,
                     const void* x, void* out) {
  rotate_cached<float, FloatIo, Native<float>>(spec, positions, tokens, n, heads, x, out,
                                               [](float v) { return v; });
}

void apply_cache_f32_fma(const RotationImplementation&, const RotationSpec& spec,
                         const RowPositions& positions, const uint64_t* tokens, uint64_t n,
                         int heads, const void* x, void* out) {
  rotate_cached<float, FloatIo, FusedFloat32>(spec, positions, tokens, n, heads, x, out,
                                              [](float v) { return v; });
}

// Hugging Face with a bfloat16 model: cos and sin are built in float32 and cast to q's dtype
// (`cos.to(dtype=x.dtype)`), then `q * cos + rotate_half(q) * sin` rounds each op to bfloat16.
void apply_hf_bf16(const RotationImplementation&, const RotationSpec& spec,
                   const RowPositions& positions, const uint64_t* tokens, uint64_t n, int heads,
                   const void* x, void* out) {
  rotate_cached<float, BFloat16Io, BFloat16Math>(spec, positions, tokens, n, heads, x, out,
                                                 &BFloat16Math::round);
}

}  // namespace pev::core::rotation_internal
