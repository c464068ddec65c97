// The CUDA rotations (docs/design.md §15.4): the registry's rotation strategies as device
// kernels (rotation_kernels.cu). Each rounds exactly as its claim says; the cache and precise
// kernels have a host twin in core/rotation whose bits they must give, checked on a device by
// crosscheck/rotation_registry_test.cc (WithHostTwin). Unavailable without a CUDA device.
#include <cstring>
#include <string>
#include <vector>

#include "peverify/core/cuda/device_buffer.h"
#include "peverify/core/cuda/rotation_launch.h"
#include "peverify/core/precise/frequencies.h"
#include "peverify/core/recipe.h"
#include "peverify/core/rotation/rotation_entries.h"

namespace pev::core {
namespace cuda {
namespace {

template <class T>
const T* upload(const std::vector<T>& v, const DeviceBuffer& b, const std::string& entry) {
  check(cudaMemcpy(b.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), entry,
        "cudaMemcpy");
  return static_cast<const T*>(b.get());
}

// The precise kernel's elements that double did not certify, recomputed on the host by the CPU
// entry's __float128 path (the same function: the two entries give the same bits).
void recompute_uncertified(const RotationSpec& spec, const RowPositions& positions,
                           const uint64_t* tokens, uint64_t n, int heads,
                           const std::vector<double>& w_hi, const std::vector<double>& w_lo,
                           const RotationRequest& r, const DeviceBuffer& dflags, const void* x,
                           void* out, const std::string& name) {
  const uint64_t hd = spec.head_dim, elements = n * heads * hd;
  std::vector<uint8_t> flags(elements);
  check(cudaMemcpy(flags.data(), dflags.get(), elements, cudaMemcpyDeviceToHost), name, "kernel");
  const float* in = static_cast<const float*>(x);
  float* o = static_cast<float*>(out);
  const int d = spec.table.d_model;
  for (uint64_t e = 0; e < elements; ++e) {
    if (!flags[e]) continue;
    const uint64_t base = e - e % hd, token = e / (heads * hd);
    const int k = static_cast<int>(e % hd);
    if (k >= d) continue;  // pass-through: copied, never flagged
    const int j = spec.pairs == PairConvention::kInterleaved ? k / 2 : k % (d / 2);
    const auto [a, b] = rotated_dims(spec, j);
    const double xa = in[base + a], xb = in[base + b];
    const double pos = static_cast<double>(positions.of_pair(spec.table, tokens[token], j));
    o[e] = k == a ? rotation_internal::precise_rotation_fallback(pos, w_hi[j], w_lo[j], r.e_w,
                                                                 r.attention, xa, xb)
                  : rotation_internal::precise_rotation_fallback(pos, w_hi[j], w_lo[j], r.e_w,
                                                                 r.attention, xb, -xa);
  }
}

template <RotationKernel kKernel>
void apply(const RotationImplementation& self, const RotationSpec& spec,
           const RowPositions& positions, const uint64_t* tokens, uint64_t n, int heads,
           const void* x, void* out) {
  if (!device_present()) throw std::runtime_error(self.name + ": no CUDA device");
  if (n == 0) return;
  const std::string& name = self.name;
  const size_t esize = self.input == Dtype::kBFloat16 ? 2 : 4;
  const size_t bytes = n * static_cast<size_t>(heads) * spec.head_dim * esize;
  DeviceBuffer dx(bytes, name), dout(bytes, name);
  check(cudaMemcpy(dx.get(), x, bytes, cudaMemcpyHostToDevice), name, "cudaMemcpy");
  // The pass-through dims: the kernel writes only the rotary ones.
  check(cudaMemcpy(dout.get(), dx.get(), bytes, cudaMemcpyDeviceToDevice), name, "cudaMemcpy");

  RotationRequest r;
  r.kernel = kKernel;
  r.bfloat16_io = self.input == Dtype::kBFloat16;
  r.interleaved = spec.pairs == PairConvention::kInterleaved;
  r.tokens = n;
  r.heads = heads;
  r.head_dim = spec.head_dim;
  r.d = spec.table.d_model;
  r.x = dx.get();
  r.out = dout.get();
  r.recipe = recipe_scalars(spec.table);
  r.recipe.ext_factors = nullptr;  // host memory; the kernels read only the attention factor
  const int pairs = r.d / 2;

  constexpr bool kPrecise = kKernel == RotationKernel::kPreciseFloat32;
  std::vector<float> cache, w;
  std::vector<double> w_hi, w_lo;
  std::vector<uint64_t> ids;
  std::vector<uint8_t> stream(pairs, 0);
  if (kPrecise) {
    for (const precise::DoubleDouble& v : precise::double_double_frequencies(spec.table)) {
      w_hi.push_back(v.hi);
      w_lo.push_back(v.lo);
    }
    r.e_w = precise::frequency_error_bound(spec.table);
    r.attention = precise::attention_in_double(spec.table);
  }
  if (kKernel == RotationKernel::kFusedFloat32Fma || kPrecise) {
    if (!kPrecise) w = rotation_internal::float32_inv_freq(spec.table);
    const RowPositions own = rotation_internal::token_ids(positions, tokens, n);
    for (const std::vector<uint64_t>& s : own.streams) ids.insert(ids.end(), s.begin(), s.end());
    if (own.stream_count() > 1)
      for (int j = 0; j < pairs; ++j)
        stream[j] = static_cast<uint8_t>(mrope_stream(spec.table.rope, j));
  } else {
    cache = rotation_internal::float32_cache(spec, positions, tokens, n);
  }
  DeviceBuffer dcache(cache.size() * sizeof(float), name), dw(w.size() * sizeof(float), name),
      dids(ids.size() * sizeof(uint64_t), name), dstream(stream.size(), name),
      dhi(w_hi.size() * sizeof(double), name), dlo(w_lo.size() * sizeof(double), name),
      dflags(kPrecise ? bytes / esize : 0, name);
  if (!cache.empty()) r.cache = upload(cache, dcache, name);
  if (!w.empty()) r.w = upload(w, dw, name);
  if (!ids.empty()) {
    r.positions = upload(ids, dids, name);
    r.pair_stream = upload(stream, dstream, name);
  }
  if (kPrecise) {
    r.w_hi = upload(w_hi, dhi, name);
    r.w_lo = upload(w_lo, dlo, name);
    r.uncertified = static_cast<uint8_t*>(dflags.get());
    // The kernel flags rotary dims only: the pass-through ones must read "certified".
    check(cudaMemset(dflags.get(), 0, bytes / esize), name, "cudaMemset");
  }
  check(static_cast<cudaError_t>(run_rotation(r)), name, "kernel launch");
  check(cudaMemcpy(out, dout.get(), bytes, cudaMemcpyDeviceToHost), name, "kernel");
  if (kPrecise)
    recompute_uncertified(spec, positions, tokens, n, heads, w_hi, w_lo, r, dflags, x, out, name);
}

}  // namespace
}  // namespace cuda

namespace rotation_internal {

void add_cuda_rotations(std::vector<RotationImplementation>& out) {
  const std::string flags =
      std::string(PEV_CUDA_FLAGS) + "; products by __fmul_rn / __fmaf_rn, written explicitly";
  std::vector<RotationImplementation> added = {
      {"cuda/rotate/cache-f32/f32", Dtype::kFloat32, Dtype::kFloat32, "float32-fma", every_recipe(),
       flags,
       "vLLM's rotary_embedding kernel on a float32 cache: fma(x_a, c, -(x_b s)) per element, "
       "cos and sin read once per token and pair for every head",
       &cuda::apply<cuda::RotationKernel::kCacheFloat32Fma>},
      {"cuda/rotate/hf-bf16/bf16", Dtype::kBFloat16, Dtype::kBFloat16, "bfloat16", every_recipe(),
       flags,
       "Hugging Face's apply_rotary_pos_emb with a bfloat16 model on the device: the float32 "
       "cache cast to bfloat16, every product and the sum rounded to bfloat16",
       &cuda::apply<cuda::RotationKernel::kCacheBFloat16>},
      {"cuda/rotate/fused-f32/f32/accurate", Dtype::kFloat32, Dtype::kFloat32, "float32-fma",
       every_recipe(), flags + "; CUDA math library sincosf",
       "a fused kernel (Transformer Engine, FlashInfer): float32 angle p * inv_freq, sincosf "
       "(2 ulp), times A, products as the cache kernel",
       &cuda::apply<cuda::RotationKernel::kFusedFloat32Fma>},
      {"cuda/rotate/precise/f32",
       Dtype::kFloat32,
       Dtype::kFloat32,
       "float64",
       every_recipe(),
       flags + "; double, explicit FMA only; uncertified elements recomputed on the host",
       "ours on the device: the CPU precise rotation's double path (direct sin and cos of the "
       "double-double frequencies, one product and one FMA), elements it cannot certify "
       "recomputed in __float128 on the host",
       &cuda::apply<cuda::RotationKernel::kPreciseFloat32>,
       nullptr,
       {},
       {},
       Claim::Kind::kFaithful},
  };
  added[0].host_twin = "cpu/rotate/cache-f32-fma/f32";
  added[1].host_twin = "cpu/rotate/hf-bf16/bf16";
  added[3].host_twin = "cpu/rotate/precise/f32";
  for (RotationImplementation& e : added) {
    e.available = cuda::device_present;
    e.unavailable_reason = "no CUDA device";
    out.push_back(std::move(e));
  }
}

}  // namespace rotation_internal
}  // namespace pev::core
