// The CUDA rotations (docs/design.md §15.4): the registry's rotation strategies as device
// kernels (rotation_kernels.cu). Each rounds exactly as its claim says; the two cache kernels
// have a host twin in core/rotation whose bits they must give, checked on a device by
// crosscheck/cuda/rotation_device_test.cc. Unavailable without a CUDA device.
#include <cstring>
#include <string>
#include <vector>

#include "core/cuda/device_buffer.h"
#include "core/cuda/rotation_launch.h"
#include "core/recipe.h"
#include "core/rotation/rotation_entries.h"

#ifndef PEV_CUDA_FLAGS
#define PEV_CUDA_FLAGS "nvcc"
#endif

namespace pev::core {
namespace cuda {
namespace {

template <class T>
const T* upload(const std::vector<T>& v, const DeviceBuffer& b, const std::string& entry) {
  check(cudaMemcpy(b.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), entry,
        "cudaMemcpy");
  return static_cast<const T*>(b.get());
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

  std::vector<float> cache, w;
  std::vector<uint64_t> ids;
  std::vector<uint8_t> stream(pairs, 0);
  if (kKernel == RotationKernel::kFusedFloat32Fma) {
    w = rotation_internal::float32_inv_freq(spec.table);
    const RowPositions own = rotation_internal::token_ids(positions, tokens, n);
    for (const std::vector<uint64_t>& s : own.streams) ids.insert(ids.end(), s.begin(), s.end());
    if (own.stream_count() > 1)
      for (int j = 0; j < pairs; ++j)
        stream[j] = static_cast<uint8_t>(mrope_stream(spec.table.rope, j));
  } else {
    cache = rotation_internal::float32_cache(spec, positions, tokens, n);
  }
  DeviceBuffer dcache(cache.size() * sizeof(float), name), dw(w.size() * sizeof(float), name),
      dids(ids.size() * sizeof(uint64_t), name), dstream(stream.size(), name);
  if (!cache.empty()) r.cache = upload(cache, dcache, name);
  if (!w.empty()) {
    r.w = upload(w, dw, name);
    r.positions = upload(ids, dids, name);
    r.pair_stream = upload(stream, dstream, name);
  }
  check(static_cast<cudaError_t>(run_rotation(r)), name, "kernel launch");
  check(cudaMemcpy(out, dout.get(), bytes, cudaMemcpyDeviceToHost), name, "kernel");
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
  };
  added[0].host_twin = "cpu/rotate/cache-f32-fma/f32";
  added[1].host_twin = "cpu/rotate/hf-bf16/bf16";
  for (RotationImplementation& e : added) {
    e.available = cuda::device_present;
    e.unavailable_reason = "no CUDA device";
    out.push_back(std::move(e));
  }
}

}  // namespace rotation_internal
}  // namespace pev::core
