// The CUDA rotations (docs/features.md §15.4): the registry's rotation strategies as device
// kernels (rotation_kernels.cu). Each rounds exactly as its claim says; the cache and precise
// kernels have a host twin in core/rotation whose bits they must give, checked on a device by
// crosscheck/rotation_registry_test.cc (WithHostTwin). Unavailable without a CUDA device.
#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "peverify/core/cuda/device_buffer.h"
#include "peverify/core/cuda/device_timing.h"
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

// q in device memory, and the output buffer holding a copy of it: the kernels write the rotary
// dims only, so the pass-through dims are the copy's.
struct QOnDevice {
  QOnDevice(const void* x, size_t bytes, const std::string& name)
      : x(bytes, name), out(bytes, name) {
    check(cudaMemcpy(this->x.get(), x, bytes, cudaMemcpyHostToDevice), name, "cudaMemcpy");
    check(cudaMemcpy(out.get(), this->x.get(), bytes, cudaMemcpyDeviceToDevice), name,
          "cudaMemcpy");
  }
  DeviceBuffer x, out;
};

// Bytes per element of q and of the output (float32, or bfloat16 bit patterns).
size_t q_element_size(const RotationImplementation& e) {
  return e.input == Dtype::kBFloat16 ? 2 : 4;
}

// A rotation kernel's inputs for one spec and token list, in device memory: the float32 cache,
// or w_j and each token's positions (fused), or the double-double w_j and the flags (precise).
class RotationInputs {
 public:
  RotationInputs(RotationKernel kernel, const RotationImplementation& self,
                 const RotationSpec& spec, const RowPositions& positions, const uint64_t* tokens,
                 uint64_t n, int heads, const void* dx, void* dout)
      : name_(self.name) {
    r.kernel = kernel;
    r.bfloat16_io = self.input == Dtype::kBFloat16;
    r.interleaved = spec.pairs == PairConvention::kInterleaved;
    r.tokens = n;
    r.heads = heads;
    r.head_dim = spec.head_dim;
    r.d = spec.table.d_model;
    r.x = dx;
    r.out = dout;
    r.recipe = recipe_scalars(spec.table);
    r.recipe.ext_factors = nullptr;  // host memory; the kernels read only the attention factor
    const int pairs = r.d / 2;
    const bool precise = kernel == RotationKernel::kPreciseFloat32;
    std::vector<float> cache, w;
    std::vector<uint64_t> ids;
    std::vector<uint8_t> stream(pairs, 0);
    if (precise) {
      for (const precise::DoubleDouble& v : precise::double_double_frequencies(spec.table)) {
        w_hi.push_back(v.hi);
        w_lo.push_back(v.lo);
      }
      r.e_w = precise::frequency_error_bound(spec.table);
      r.attention = precise::attention_in_double(spec.table);
    }
    if (kernel == RotationKernel::kFusedFloat32Fma || precise) {
      if (!precise) w = rotation_internal::float32_inv_freq(spec.table);
      const RowPositions own = rotation_internal::token_ids(positions, tokens, n);
      for (const std::vector<uint64_t>& s : own.streams) ids.insert(ids.end(), s.begin(), s.end());
      if (own.stream_count() > 1)
        for (int j = 0; j < pairs; ++j)
          stream[j] = static_cast<uint8_t>(mrope_stream(spec.table.rope, j));
    } else {
      cache = rotation_internal::float32_cache(spec, positions, tokens, n);
    }
    const uint64_t elements = n * static_cast<uint64_t>(heads) * spec.head_dim;
    allocate(cache.size() * sizeof(float), dcache_);
    allocate(w.size() * sizeof(float), dw_);
    allocate(ids.size() * sizeof(uint64_t), dids_);
    allocate(stream.size(), dstream_);
    allocate(w_hi.size() * sizeof(double), dhi_);
    allocate(w_lo.size() * sizeof(double), dlo_);
    allocate(precise ? elements : 0, dflags_);
    if (!cache.empty()) r.cache = upload(cache, *dcache_, name_);
    if (!w.empty()) r.w = upload(w, *dw_, name_);
    if (!ids.empty()) {
      r.positions = upload(ids, *dids_, name_);
      r.pair_stream = upload(stream, *dstream_, name_);
    }
    if (precise) {
      r.w_hi = upload(w_hi, *dhi_, name_);
      r.w_lo = upload(w_lo, *dlo_, name_);
      r.uncertified = static_cast<uint8_t*>(dflags_->get());
      // The kernel flags rotary dims only: the pass-through ones must read "certified".
      check(cudaMemset(dflags_->get(), 0, elements), name_, "cudaMemset");
    }
  }
  // Asynchronous, on the default stream.
  void launch() const { check(static_cast<cudaError_t>(run_rotation(r)), name_, "kernel launch"); }
  const DeviceBuffer& flags() const { return *dflags_; }

  RotationRequest r;
  std::vector<double> w_hi, w_lo;

 private:
  void allocate(size_t bytes, std::unique_ptr<DeviceBuffer>& b) {
    b = std::make_unique<DeviceBuffer>(bytes, name_);
  }
  std::string name_;
  std::unique_ptr<DeviceBuffer> dcache_, dw_, dids_, dstream_, dhi_, dlo_, dflags_;
};

template <RotationKernel kKernel>
void apply(const RotationImplementation& self, const RotationSpec& spec,
           const RowPositions& positions, const uint64_t* tokens, uint64_t n, int heads,
           const void* x, void* out) {
  if (!device_present()) throw std::runtime_error(self.name + ": no CUDA device");
  if (n == 0) return;
  const std::string& name = self.name;
  const size_t bytes = n * static_cast<size_t>(heads) * spec.head_dim * q_element_size(self);
  const QOnDevice q(x, bytes, name);
  const RotationInputs in(kKernel, self, spec, positions, tokens, n, heads, q.x.get(), q.out.get());
  in.launch();
  check(cudaMemcpy(out, q.out.get(), bytes, cudaMemcpyDeviceToHost), name, "kernel");
  if (kKernel == RotationKernel::kPreciseFloat32)
    recompute_uncertified(spec, positions, tokens, n, heads, in.w_hi, in.w_lo, in.r, in.flags(), x,
                          out, name);
}

// The kernel behind a CUDA rotation entry (its apply function says which).
RotationKernel kernel_of(const RotationImplementation& e) {
  using K = RotationKernel;
  if (e.apply == &apply<K::kCacheFloat32Fma>) return K::kCacheFloat32Fma;
  if (e.apply == &apply<K::kCacheBFloat16>) return K::kCacheBFloat16;
  if (e.apply == &apply<K::kFusedFloat32Fma>) return K::kFusedFloat32Fma;
  if (e.apply == &apply<K::kPreciseFloat32>) return K::kPreciseFloat32;
  throw std::runtime_error(e.name + " is not a CUDA rotation");
}

}  // namespace

std::vector<double> time_rotation_kernel(const RotationImplementation& e, const RotationSpec& spec,
                                         uint64_t tokens, int heads, int repetitions) {
  const RotationKernel kernel = kernel_of(e);
  if (!device_present()) throw std::runtime_error(e.name + ": no CUDA device");
  const size_t esize = q_element_size(e);
  const uint64_t elements = tokens * static_cast<uint64_t>(heads) * spec.head_dim;
  // Random q in [-1, 1) (never zeros: they would hide unwritten outputs and can run faster): a
  // block of 2^20 random values, repeated over the tokens.
  std::vector<uint8_t> x(elements * esize);
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  const uint64_t block = std::min<uint64_t>(elements, uint64_t{1} << 20);
  for (uint64_t i = 0; i < block; ++i) {
    const float v = value(rng);
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    const uint16_t top = static_cast<uint16_t>(bits >> 16);  // a bfloat16 value in [-1, 1)
    std::memcpy(&x[i * esize], esize == 4 ? static_cast<const void*>(&v) : &top, esize);
  }
  for (uint64_t done = block * esize; done < x.size(); done += block * esize)
    std::memcpy(&x[done], x.data(), std::min<uint64_t>(block * esize, x.size() - done));
  const QOnDevice q(x.data(), x.size(), e.name);
  std::vector<uint64_t> ids(tokens);
  std::iota(ids.begin(), ids.end(), uint64_t{0});
  const RowPositions positions{{ids}};  // token i at position i
  const RotationInputs in(kernel, e, spec, positions, ids.data(), tokens, heads, q.x.get(),
                          q.out.get());
  return time_repetitions(e.name, repetitions, [&] { in.launch(); });
}

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
